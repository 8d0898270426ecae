/** Conversation connections on the session core's fakes, for specs; closeAll() ends every one opened. */
import { FakeEngine, FakeMeter, FakeStore, FakeTransport } from '../../../../../session-core/testing/fakes';
import {
  openRealtimeConversation,
  type ConversationConnectionOptions,
  type RealtimeConversationConnection,
} from '../conversation.connection';
import { conversationConfig } from '../conversation.start';

export class FakeConnections {
  private readonly opened: RealtimeConversationConnection[] = [];

  open(engine: FakeEngine, options: Partial<ConversationConnectionOptions> = {}) {
    const transport = new FakeTransport();
    const connection = openRealtimeConversation({
      sessionId: 'sess_t1',
      config: conversationConfig('vendor-voicechat'),
      engine,
      transport,
      store: new FakeStore(),
      meter: new FakeMeter(),
      aliases: new Map(),
      ...options,
    });
    this.opened.push(connection);
    const send = (event: object) => connection.onMessage(JSON.stringify(event), false);
    return { connection, transport, send };
  }

  /** The client's close handshake; resolves once the session is recorded closed. */
  async close(connection: RealtimeConversationConnection): Promise<void> {
    this.opened.splice(this.opened.indexOf(connection), 1);
    connection.onClose(1000);
    await connection.runtime.done;
  }

  async closeAll(): Promise<void> {
    for (const connection of [...this.opened]) await this.close(connection);
  }
}

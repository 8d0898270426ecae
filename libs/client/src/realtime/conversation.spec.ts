import { Conversation, ConversationError, connectConversation } from './conversation.js';
import type { WebSocketLike } from '../live/live-session.js';

/** A socket the test plays the server of: it records what the client sends. */
class ScriptedSocket implements WebSocketLike {
  static last: ScriptedSocket;
  readyState = 0;
  binaryType = 'arraybuffer';
  readonly sent: Record<string, any>[] = [];
  private readonly handlers = new Map<string, ((event: any) => void)[]>();

  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {
    ScriptedSocket.last = this;
    queueMicrotask(() => {
      this.readyState = 1;
      this.emit('open', {});
    });
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, any>);
  }
  close(code = 1005): void {
    this.readyState = 3;
    this.emit('close', { code });
  }
  addEventListener(type: string, listener: (event: never) => void): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), listener as (event: any) => void]);
  }
  serve(event: object): void {
    this.emit('message', { data: JSON.stringify(event) });
  }
  types(): string[] {
    return this.sent.map((event) => String(event.type));
  }
  private emit(type: string, event: unknown): void {
    for (const handler of this.handlers.get(type) ?? []) handler(event);
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function connected(tools: Parameters<typeof connectConversation>[0]['tools'] = {}) {
  const pending = connectConversation({
    baseUrl: 'https://speech.example.com',
    clientSecret: 'ek_secret',
    instructions: 'Be brief.',
    tools,
    WebSocket: ScriptedSocket as never,
  });
  await settle();
  const socket = ScriptedSocket.last;
  socket.serve({ type: 'session.updated', session: {} });
  return { conversation: await pending, socket };
}

describe('connectConversation', () => {
  it('opens /v1/realtime with the secret in the subprotocol and sends the instructions and tools', async () => {
    const { socket } = await connected({
      get_time: { description: 'The time', parameters: { type: 'object', properties: {} }, run: () => '10:00' },
    });
    expect(socket.url).toBe('wss://speech.example.com/v1/realtime?model=vendor-voicechat');
    expect(socket.protocols).toEqual(['realtime', 'openai-insecure-api-key.ek_secret']);
    expect(socket.sent[0]).toEqual({
      type: 'session.update',
      event_id: 'client_configure',
      session: {
        type: 'realtime',
        instructions: 'Be brief.',
        tools: [
          {
            type: 'function',
            name: 'get_time',
            description: 'The time',
            parameters: { type: 'object', properties: {} },
          },
        ],
        tool_choice: 'auto',
        output_modalities: ['audio'],
      },
    });
  });

  it('refuses an API key, and rejects with the server’s refusal of the configuration', async () => {
    await expect(
      connectConversation({ baseUrl: 'https://x', clientSecret: 'wk_key', WebSocket: ScriptedSocket as never }),
    ).rejects.toThrow(/never an API key/);
    const pending = connectConversation({
      baseUrl: 'https://x',
      clientSecret: 'ek_s',
      WebSocket: ScriptedSocket as never,
    });
    await settle();
    ScriptedSocket.last.serve({ type: 'error', error: { message: 'tools are not served', code: 'unsupported_tools' } });
    await expect(pending).rejects.toEqual(new ConversationError('tools are not served', 'unsupported_tools'));
  });
});

describe('Conversation tools', () => {
  it('runs a completed function call and asks for the answer once the response that called it is done', async () => {
    const calls: unknown[] = [];
    const { socket } = await connected({
      get_time: {
        description: 'The time',
        parameters: {},
        run: (args) => {
          calls.push(args);
          return { time: '10:00' };
        },
      },
    });
    socket.serve({ type: 'response.created', response: { id: 'resp_1' } });
    socket.serve({
      type: 'response.output_item.done',
      item: {
        type: 'function_call',
        status: 'completed',
        name: 'get_time',
        call_id: 'call_1',
        arguments: '{"tz":"UTC"}',
      },
    });
    await settle();
    expect(calls).toEqual([{ tz: 'UTC' }]);
    expect(socket.types().slice(1)).toEqual(['conversation.item.create']);
    expect(socket.sent[1].item).toEqual({
      type: 'function_call_output',
      call_id: 'call_1',
      output: '{"time":"10:00"}',
    });
    socket.serve({ type: 'response.done', response: { id: 'resp_1', status: 'completed' } });
    expect(socket.types().slice(1)).toEqual(['conversation.item.create', 'response.create']);
  });

  it('answers an unknown tool with an error output, and never sends two response.create at once', async () => {
    const { conversation, socket } = await connected();
    socket.serve({
      type: 'response.output_item.done',
      item: { type: 'function_call', status: 'completed', name: 'nope', call_id: 'c', arguments: '' },
    });
    await settle();
    conversation.say('and now?');
    expect(socket.sent[1].item.output).toBe('{"error":"no tool named nope"}');
    expect(socket.types().filter((type) => type === 'response.create')).toHaveLength(1);
    // The first was refused (its event_id echoed): the next one may go.
    socket.serve({ type: 'error', error: { code: 'x', message: 'no', event_id: socket.sent[2].event_id } });
    conversation.say('again');
    expect(socket.types().filter((type) => type === 'response.create')).toHaveLength(2);
  });

  it('decodes output audio', () => {
    const samples = Conversation.audioOf({
      type: 'response.output_audio.delta',
      delta: Buffer.from([1, 0, 255, 255]).toString('base64'),
    });
    expect([...samples]).toEqual([1, -1]);
  });
});

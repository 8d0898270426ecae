import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { relaySideband } from './sideband-relay';

/**
 * The sidebands this instance relays to the instances that hold their calls: started, logged, and
 * closed (1001) when this instance shuts down; the call itself lives on where it is held.
 */
@Injectable()
export class SidebandRelays implements BeforeApplicationShutdown {
  private readonly logger = new Logger('SidebandRelays');
  private readonly live = new Set<WebSocket>();

  relay(client: WebSocket, owner: WebSocket, req: IncomingMessage): void {
    const callId = new URL(req.url ?? '/', 'http://x').searchParams.get('call_id');
    this.live.add(client);
    this.logger.log(`sideband of call ${callId} relayed to the instance that holds it`);
    void relaySideband({ client, owner }).then(() => this.live.delete(client));
  }

  get size(): number {
    return this.live.size;
  }

  beforeApplicationShutdown(): void {
    for (const client of this.live) client.close(1001, 'going_away');
  }
}

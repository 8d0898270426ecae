import type { MessageMappingProperties } from '@nestjs/websockets';
import { WsAdapter } from '@nestjs/platform-ws';
import type { INestApplicationContext } from '@nestjs/common';
import type { Observable } from 'rxjs';

/**
 * Nest's ws adapter for gateways that read their sockets' frames themselves (binary-safe, and
 * without a JSON.parse of every audio frame) and so declare no @SubscribeMessage handlers.
 * Nest's WsAdapter would still pipe every message of every socket through its own rxjs chain
 * (fromEvent → mergeMap → parser → filter), which is measurable per-frame work at hundreds of
 * sessions streaming 12.5 frames/s each: with no handlers, nothing is bound.
 */
export class RawFramesWsAdapter extends WsAdapter {
  constructor(app: INestApplicationContext) {
    // A gateway with handlers (none today) must not get every audio frame JSON-parsed either.
    super(app, { messageParser: () => undefined as never });
  }

  override bindMessageHandlers(
    client: unknown,
    handlers: MessageMappingProperties[],
    transform: (data: unknown) => Observable<unknown>,
  ): void {
    if (handlers.length === 0) return;
    super.bindMessageHandlers(client, handlers, transform);
  }
}

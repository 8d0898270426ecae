import { systemClock } from '../../../session-core';
import type { Dialect } from '../../dialect';
import { START_TIMEOUT_MS } from '../../connection/socket-limits';
import { wsTransport } from '../../connection/ws-transport';
import { LIVE_ASYNCAPI } from './live.asyncapi';
import { LiveConnection } from './live.connection';

/** `session.live_url`: the live protocol (openai Live convention); the session is picked at session.start. */
export const LIVE_DIALECT: Dialect<void> = {
  name: 'live',
  path: '/v1/live/sessions',
  credentials: 'live',
  serves: 'any',
  query: () => undefined,
  connect: ({ ws, lock, runtime, engines }) => {
    const connection = new LiveConnection({ ...runtime, engine: engines.default, lock, transport: wsTransport(ws) });
    // A socket that never starts a session must not hold a slot (or a redeemed secret's row) forever.
    const clock = runtime.clock ?? systemClock;
    const startTimer = clock.setTimer(() => {
      if (connection.runtime.phase === 'awaiting_start') ws.close(1008, 'session.start not received in time');
    }, START_TIMEOUT_MS);
    void connection.runtime.done.finally(() => clock.clearTimer(startTimer));
    return connection;
  },
  asyncapi: [LIVE_ASYNCAPI],
};

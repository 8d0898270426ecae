import { systemClock } from '../../../session-core';
import type { Dialect } from '../../dialect';
import { START_TIMEOUT_MS } from '../../connection/socket-limits';
import { wsTransport } from '../../connection/ws-transport';
import { queryParameter, SERVER_HEADERS } from '../../handshake/credential-places';
import { LIVE_ASYNCAPI } from './live.asyncapi';
import { LiveConnection } from './live.connection';
import { DEFAULT_MAX_MESSAGE_BYTES, parseLiveFrame } from './live.protocol';

/** `session.live_url`: the live protocol (openai Live convention); the session is picked at session.start. */
export const LIVE_DIALECT: Dialect<void> = {
  name: 'live',
  path: '/v1/live/sessions',
  // Browsers cannot set headers on a WebSocket: they send a client secret as ?token=.
  credentials: [SERVER_HEADERS, queryParameter('token')],
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
  channels: [
    {
      doc: LIVE_ASYNCAPI,
      accepts: (text) =>
        parseLiveFrame(text, false, { lock: null, maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES }).type !== 'reject',
    },
  ],
};

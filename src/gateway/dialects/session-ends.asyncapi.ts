import type { SessionEndDoc } from '../../platform/openapi/socket-dialect-doc';

/**
 * The ends every socket's session can meet, said once: each dialect lists those it documents with
 * what its client receives last (`lastMessages`), in its own words; the order is this table's.
 */
const SHARED_ENDS = {
  expired: { how: '`MAX_SESSION_SECONDS` reached', cause: { kind: 'expired' } },
  deleted: { how: '`DELETE /v1/sessions/{id}`', cause: { kind: 'deleted' } },
  keyRevoked: { how: 'the API key behind the session is revoked', cause: { kind: 'key_revoked' } },
  notReading: { how: 'the client stops reading (4 MiB unsent)', cause: { kind: 'client_not_reading' } },
  unanswered: { how: 'no answer to the server’s pings', cause: { kind: 'keepalive_timeout' } },
  shutdown: { how: 'the instance shuts down', cause: { kind: 'shutdown' } },
  engineFailed: { how: 'the engine fails', cause: { kind: 'engine_failed', message: '' } },
  noWorker: { how: 'no worker left for a remote engine', cause: { kind: 'engine_unavailable', message: '' } },
  dropped: { how: 'the socket drops (no close handshake, or an error code)', cause: { kind: 'transport_lost' } },
  // A socket that starts on connect (the Realtime and Deepgram sockets) ends so when its engine cannot be opened.
  noCapacity: {
    how: 'the engine cannot be opened at connect (no capacity)',
    cause: { kind: 'start_failed', code: 'capacity_exhausted' },
  },
  startFailed: {
    how: 'the engine cannot be opened at connect (failure)',
    cause: { kind: 'start_failed', code: 'internal_error' },
  },
} as const satisfies Record<string, Omit<SessionEndDoc, 'lastMessages'>>;

export type SharedEnd = keyof typeof SHARED_ENDS;

export function sharedEnds(lastMessages: { readonly [end in SharedEnd]?: string }): SessionEndDoc[] {
  return (Object.keys(SHARED_ENDS) as SharedEnd[]).flatMap((end) => {
    const last = lastMessages[end];
    return last === undefined ? [] : [{ ...SHARED_ENDS[end], lastMessages: last }];
  });
}

/**
 * How the session core's own guards end a session on every socket (docs/api.md, "Hostile clients"),
 * each dialect telling it its own way (`lastMessages`).
 */
export function sessionGuardEnds(lastMessages: { idle: string; limit: string; fault: string }): SessionEndDoc[] {
  return [
    { how: 'no input audio for `SESSION_IDLE_SECONDS` (30)', cause: { kind: 'idle' }, lastMessages: lastMessages.idle },
    {
      how: 'over `SOCKET_CONTROL_BURST` control messages at once (200), or over `SOCKET_CONTROL_PER_SECOND` (50)',
      cause: { kind: 'policy', limit: 'control_rate' },
      lastMessages: lastMessages.limit,
    },
    {
      how: 'over 256 messages sent while the session starts or reopens its engine',
      cause: { kind: 'policy', limit: 'held_events' },
      lastMessages: lastMessages.limit,
    },
    {
      how: 'a failure of the session’s own work on the server',
      cause: { kind: 'internal_error' },
      lastMessages: lastMessages.fault,
    },
  ];
}

import type { SessionEndDoc } from '../../platform/openapi/socket-dialect-doc';

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

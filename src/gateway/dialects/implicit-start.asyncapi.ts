import type { SessionEndDoc } from '../../platform/openapi/socket-dialect-doc';

/**
 * How a socket that starts on connect ends when its engine cannot be opened: the Realtime and
 * Deepgram sockets, each telling it its own way (`lastMessages`).
 */
export function implicitStartFailures(lastMessages: { capacity: string; failure: string }): SessionEndDoc[] {
  return [
    {
      how: 'the engine cannot be opened at connect (no capacity)',
      cause: { kind: 'start_failed', code: 'capacity_exhausted' },
      lastMessages: lastMessages.capacity,
    },
    {
      how: 'the engine cannot be opened at connect (failure)',
      cause: { kind: 'start_failed', code: 'internal_error' },
      lastMessages: lastMessages.failure,
    },
  ];
}

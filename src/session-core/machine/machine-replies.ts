/** What the machine answers by itself: its own refusals and the acknowledgements of client events. */
import type { Effect } from '../model/session.effects';
import type { ServerEvent } from '../model/session.events';

/** The machine's own refusals; dialect refusals come in through reject(). */
export const REFUSALS = {
  session_not_started: 'send session.start and wait for session.started first',
  session_already_started: 'session.start was already received',
  session_closed: 'the session is closing',
  invalid_audio: 'audio must be whole pcm16 samples (an even number of bytes)',
  input_audio_buffer_empty: 'no audio was appended since the last commit',
  session_config_locked: 'language and turn detection are fixed once audio has been appended',
} as const;

export type Refusal = keyof typeof REFUSALS;

type Acknowledgement = Extract<ServerEvent, { clientEventId?: string }>;

/** Emits `event`, with `clientEventId` only when the client sent one (renderers test its presence). */
export function ack(event: Acknowledgement, clientEventId: string | undefined): Effect {
  return { kind: 'emit', event: clientEventId === undefined ? event : { ...event, clientEventId } };
}

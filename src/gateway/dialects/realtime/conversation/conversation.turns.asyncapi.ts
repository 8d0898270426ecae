/**
 * Turn detection of a conversation session in the AsyncAPI document: what `session.update` takes,
 * what `session.updated` shows, and the idle timeout's server event. Kept beside the channel's
 * document (conversation.asyncapi.ts), whose shared schemas and server messages use them.
 */
import type { MessageDoc } from '../../../../platform/openapi/socket-dialect-doc';
import {
  bool,
  constant,
  int,
  nullable,
  num,
  object,
  oneOfValues,
  str,
  typed,
  type JsonSchema,
} from '../../../../platform/openapi/asyncapi-schemas';
import { serverId } from '../realtime.asyncapi';
import { EAGERNESS, IDLE_TIMEOUT_MS } from './conversation.session-update';

const oneOf = (...schemas: JsonSchema[]): JsonSchema => ({ oneOf: schemas });
const eagerness = oneOfValues(Object.keys(EAGERNESS), 'Mapped to the end-of-turn model (docs/api.md).');
const idleTimeout = (description?: string): JsonSchema =>
  nullable({ ...int(undefined, IDLE_TIMEOUT_MS.min), maximum: IDLE_TIMEOUT_MS.max }, description);
const createResponse = bool('Default true: each committed turn is answered.');
const interruptResponse = bool(
  'Default true: speech over an answer cancels it (`turn_detected`). false: the answer plays on to its end; ' +
    'the speech is still heard, committed and transcribed, and (with `create_response`) answered once the ' +
    'answer is done. Changes at any time.',
);

/** `session.update`'s `audio.input.turn_detection`. */
export const TURN_DETECTION_UPDATE: JsonSchema = nullable(
  oneOf(
    object(
      {},
      {
        type: constant('server_vad', 'The default type.'),
        threshold: num('0..1'),
        prefix_padding_ms: int(undefined, 0),
        silence_duration_ms: int(undefined, 0),
        idle_timeout_ms: idleTimeout(
          `${IDLE_TIMEOUT_MS.min}..${IDLE_TIMEOUT_MS.max}; null (the default): off. Counted from the end of the ` +
            'last answer’s audio (and of speech not answered); no speech for that long brings ' +
            '`input_audio_buffer.timeout_triggered`, the silent audio committed as a user item and, with ' +
            '`create_response`, a response prompting the user. Changes at any time.',
        ),
        create_response: createResponse,
        interrupt_response: interruptResponse,
      },
    ),
    object(
      { type: constant('semantic_vad') },
      {
        eagerness,
        idle_timeout_ms: {
          type: 'null',
          description: 'server_vad only, as OpenAI: a timeout is `unsupported_parameter`.',
        },
        create_response: createResponse,
        interrupt_response: interruptResponse,
      },
    ),
  ),
  'null: turns end on `input_audio_buffer.commit` and are not answered on their own. A turn_detection object ' +
    'replaces the whole setting (what it leaves out is the default). The type and VAD settings change only ' +
    'before the first audio (`session_config_locked` after); `create_response`, `interrupt_response` and ' +
    '`idle_timeout_ms` at any time. An engine that answers spoken turns by itself refuses ' +
    '`interrupt_response: false` and `idle_timeout_ms` (`unsupported_parameter`).',
);

/** What `session.created` / `session.updated` show. */
export const TURN_DETECTION_SHOWN: JsonSchema = nullable(
  oneOf(
    object({
      type: constant('server_vad'),
      threshold: num(),
      prefix_padding_ms: int(),
      silence_duration_ms: int(),
      idle_timeout_ms: idleTimeout(),
      create_response: bool(),
      interrupt_response: bool(),
    }),
    object({
      type: constant('semantic_vad'),
      eagerness,
      create_response: bool(),
      interrupt_response: bool(),
    }),
  ),
);

export const TIMEOUT_TRIGGERED: Record<string, MessageDoc> = {
  'input_audio_buffer.timeout_triggered': {
    summary:
      'No speech for `idle_timeout_ms` after the last answer’s audio played: the silent segment of the input ' +
      'audio (ms from its start; equal when no audio was sent), committed as `item_id` ' +
      '(`input_audio_buffer.committed`, `conversation.item.added` / `.done` follow), then a response unless ' +
      '`create_response` is false or a response runs.',
    payload: typed('input_audio_buffer.timeout_triggered', {
      ...serverId,
      item_id: str(),
      audio_start_ms: int(undefined, 0),
      audio_end_ms: int(undefined, 0),
    }),
  },
};

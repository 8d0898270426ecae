/**
 * The component schemas of the live socket's AsyncAPI channel, each checked against its type in
 * libs/protocol/live-events.ts (SchemaOf: the same field names, required and optional).
 */
import type {
  LiveError,
  LiveSessionResource,
  LiveSessionStats,
  LiveTurnEvent,
  LiveUsage,
  LiveWarningCode,
} from '../../../../libs/protocol/live-events';
import {
  anyJson,
  array,
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
  type SchemaOf,
} from '../../../platform/openapi/asyncapi-schemas';
import { VOICE as LIVE_VOICE } from '../../../session-core';
import { LIVE_MODELS } from './live.start';

export const LIVE_ERROR_CODES = [
  'invalid_json',
  'invalid_event',
  'unknown_event',
  'unsupported_event',
  'message_too_large',
  'invalid_audio',
  'invalid_parameter',
  'missing_parameter',
  'unknown_parameter',
  'unsupported_parameter',
  'immutable_parameter',
  'unsupported_audio_format',
  'invalid_voice',
  'session_config_locked',
  'session_not_started',
  'session_already_started',
  'session_closed',
  'concurrency_limit_exceeded',
  'insufficient_credit',
  'capacity_exhausted',
  'internal_error',
  'engine_error',
  'rate_limit_exceeded',
] as const;

export const WARNINGS: Record<LiveWarningCode, string> = {
  audio_while_muted: 'audio arrived while muted (once per mute): still metered, the engine hears silence',
  partial_frame: 'an append that is not a whole number of 80 ms frames (once per session); the rest is carried over',
  input_faster_than_realtime: 'input is more than 2 s ahead of the wall clock',
  input_dropped: 'input more than 5 s ahead of the wall clock was dropped and not metered',
  output_audio_dropped: 'the client reads too slowly: output audio past 256 KiB of backlog was dropped',
};

const TURN_EVENTS: { [Type in LiveTurnEvent['type']]: SchemaOf<Extract<LiveTurnEvent, { type: Type }>> } = {
  speech_started: typed('speech_started', { item_id: str(), start_ms: int('On the input audio timeline.', 0) }),
  speech_stopped: typed('speech_stopped', { item_id: str(), end_ms: int('On the input audio timeline.', 0) }),
  response_started: typed('response_started', { item_id: str('The answer’s item.') }),
  response_done: typed('response_done', {
    item_id: str(),
    interrupted: bool('The answer was cut by barge-in (the user spoke).'),
  }),
  eager_end_of_turn: typed('eager_end_of_turn', {
    item_id: str(),
    confidence: num('End-of-turn confidence (0–1) when the eager threshold was crossed: the answer is being prepared.'),
    transcript: str('The turn’s transcript so far.'),
  }),
  turn_resumed: typed('turn_resumed', {
    item_id: str('After `eager_end_of_turn` the user went on; the prepared answer was dropped.'),
  }),
  end_of_turn: typed('end_of_turn', {
    item_id: str(),
    confidence: num('End-of-turn confidence (0–1) when the turn ended.'),
    trigger: oneOfValues(
      ['model', 'manual', 'timeout'],
      'What ended the turn: the confidence, a commit, or the silence timeout.',
    ),
  }),
};

export const eventId = { event_id: str('The client’s id; echoed as `client_event_id` by the answer.') };
export const echo = { client_event_id: str('The `event_id` of the client event this answers, when it had one.') };
export const serverId = { event_id: str('Server event id (`evt_<n>`).') };
export const inputWarnings = (Object.keys(WARNINGS) as LiveWarningCode[]).filter((c) => c !== 'output_audio_dropped');

const count = int(undefined, 0);
const STATS: Record<keyof LiveSessionStats, JsonSchema> = {
  duration_ms: count,
  input_frames: count,
  muted_frames: count,
  dropped_input_ms: count,
  output_frames: count,
  output_dropped_frames: count,
  turns: count,
  responses: count,
  interruptions: count,
  warnings: count,
  errors: count,
};

export const LIVE_SCHEMAS: Record<string, JsonSchema> = {
  LiveSessionConfig: object(
    {},
    {
      model: oneOfValues(Object.keys(LIVE_MODELS), 'Required unless the client secret already names it.'),
      audio: object(
        {},
        {
          format: nullable(object({ type: constant('audio/pcm') }, { rate: nullable(constant(24000)) })),
          output: object(
            {},
            {
              voice: nullable({ oneOf: [constant(LIVE_VOICE), object({ id: constant(LIVE_VOICE) })] }),
              encoding: oneOfValues(['base64', 'binary'], 'binary: output audio comes as binary frames of raw pcm16.'),
            },
          ),
        },
      ),
      instructions: nullable(constant(''), 'Unsupported (the persona is fixed): null or empty only.'),
      input: nullable(array(anyJson(), 'Unsupported (no starting history): empty only.')),
      delegation: nullable(object({ type: constant('client') })),
      store: nullable(constant(false)),
      triggers: nullable(array(anyJson(), 'Unsupported: empty only.')),
      client: anyJson('Accepted and ignored.'),
    },
    'Omitted values take defaults; with a client secret, anything given must equal the secret’s configuration.',
  ),
  LiveSession: object({
    id: str('The session id (`sess_…`), as in `GET /v1/sessions/{id}`.'),
    object: constant('session'),
    type: oneOfValues(['live', 'transcription']),
    model: str(),
    status: constant('active', 'Always `active`, also inside `session.closed` (the convention’s rule).'),
    expires_at: int('Unix seconds: when the session reaches its maximum duration.'),
    audio: object(
      { format: object({ type: constant('audio/pcm'), rate: constant(24000) }) },
      { output: object({ voice: constant(LIVE_VOICE), encoding: oneOfValues(['base64', 'binary']) }) },
    ),
    instructions: { type: 'null' },
    input: { type: 'array', maxItems: 0 },
    delegation: object({ type: constant('client') }),
    store: constant(false),
  }) satisfies SchemaOf<LiveSessionResource>,
  LiveUsage: object({
    seconds: num('Cumulative audio seconds: frames × 0.08.'),
    frames: int('Cumulative billable 80 ms input frames.', 0),
  }) satisfies SchemaOf<LiveUsage>,
  LiveError: object(
    {
      type: oneOfValues(['invalid_request_error', 'server_error']),
      code: oneOfValues(LIVE_ERROR_CODES),
      message: str(),
      param: nullable(str()),
    },
    echo,
  ) satisfies SchemaOf<LiveError>,
};

export const STATS_SCHEMA = object(STATS) satisfies SchemaOf<LiveSessionStats>;
export const TURN_EVENT_SCHEMA: JsonSchema = { oneOf: Object.values(TURN_EVENTS) };

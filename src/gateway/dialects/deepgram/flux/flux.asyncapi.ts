/**
 * The Deepgram Flux-compatible socket (`/v2/listen`, turn-taking transcription) in the AsyncAPI
 * document. Query rules come from flux.query.ts, messages from flux.protocol.ts and flux.render.ts;
 * the conformance test sends every example through parseFluxFrame and validates the frames a real
 * session sends against these schemas.
 */
import type { MessageDoc, SocketDialectDoc } from '../../../../platform/openapi/socket-dialect-doc';
import {
  array,
  binary,
  constant,
  int,
  num,
  object,
  oneOfValues,
  openObject,
  ref,
  str,
  typed,
  type JsonSchema,
} from '../../../../platform/openapi/asyncapi-schemas';
import { COMPAT_HANDSHAKE_REFUSALS } from '../../../handshake/handshake-refusals.asyncapi';
import { TRANSCRIPTION_MODEL } from '../../../../engines';
import { CLOSE_REASONS as CLOSE_TEXTS } from '../listen/listen.connection';
import { MAX_SAMPLE_RATE, MIN_SAMPLE_RATE } from '../listen/listen.query';
import { EAGER_EOT_THRESHOLD, EOT_THRESHOLD, EOT_TIMEOUT_MS, FLUX_MODEL_ALIASES } from './flux.query';
import { sessionGuardEnds, sharedEnds } from '../../session-ends.asyncapi';

/**
 * `Error` codes: the connection's own for an undecodable message, and the session core's server
 * errors upper-cased by the renderer (an engine error, an engine that could not be opened).
 */
export const FLUX_ERROR_CODES = [
  'UNPARSABLE_CLIENT_MESSAGE',
  'ENGINE_ERROR',
  'CAPACITY_EXHAUSTED',
  'INTERNAL_ERROR',
] as const;

export const FLUX_TURN_EVENTS = ['StartOfTurn', 'Update', 'EagerEndOfTurn', 'TurnResumed', 'EndOfTurn'] as const;

const range = (min: number, max: number, integer: boolean, description: string): JsonSchema => ({
  ...(integer ? int(description) : num(description)),
  minimum: min,
  maximum: max,
});

const ids = {
  request_id: str('The session id: `GET /v1/sessions/{request_id}` finds it.'),
  sequence_id: int('0 for the first message the server sends, +1 for each after it.', 0),
};

const QUERY = openObject(
  {
    model: oneOfValues(
      [TRANSCRIPTION_MODEL, ...FLUX_MODEL_ALIASES],
      `\`${FLUX_MODEL_ALIASES.join('`, `')}\` is an alias of \`${TRANSCRIPTION_MODEL}\`, so Deepgram code changes ` +
        'only its base URL and key.',
    ),
    encoding: constant('linear16', 'Raw pcm16 little-endian; other encodings and containers are 400.'),
    sample_rate: str(`An integer from ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE}; other than 24000 is resampled.`),
  },
  {
    eot_threshold: str(
      `${EOT_THRESHOLD.min}..${EOT_THRESHOLD.max}, default ${EOT_THRESHOLD.default}: the end-of-turn confidence that ` +
        'ends a turn; 1: only `ForceEndTurn` or the timeout ends turns.',
    ),
    eager_eot_threshold: str(
      `${EAGER_EOT_THRESHOLD.min}..${EAGER_EOT_THRESHOLD.max}, at most \`eot_threshold\`; turns on ` +
        '`EagerEndOfTurn` and `TurnResumed`. Default off.',
    ),
    eot_timeout_ms: str(
      `An integer from ${EOT_TIMEOUT_MS.min} to ${EOT_TIMEOUT_MS.max}, default ${EOT_TIMEOUT_MS.default}: ` +
        'milliseconds of silence after which the turn ends whatever the confidence (`trigger: timeout`).',
    ),
    keyterm: str('Repeatable. Accepted and echoed by `ConfigureSuccess`; the recogniser has no keyword boosting.'),
    tag: str('Accepted, no effect (no tags are kept).'),
    mip_opt_out: oneOfValues(['true', 'false'], 'Accepted, no effect (audio is never used for training).'),
    token: str('A client secret (browsers).'),
    ...Object.fromEntries(
      ['language_hint', 'numerals', 'profanity_filter', 'redact'].map((name) => [name, str('Accepted, no effect.')]),
    ),
  },
  'Out of range is 400 `invalid_parameter` naming the parameter; unknown parameters are ignored.',
);

const thresholds = {
  eot_threshold: range(EOT_THRESHOLD.min, EOT_THRESHOLD.max, false, 'End-of-turn confidence that ends a turn.'),
  eager_eot_threshold: range(
    EAGER_EOT_THRESHOLD.min,
    EAGER_EOT_THRESHOLD.max,
    false,
    'Confidence of an eager end; at most `eot_threshold`.',
  ),
  eot_timeout_ms: range(EOT_TIMEOUT_MS.min, EOT_TIMEOUT_MS.max, true, 'Silence (ms) that ends the turn.'),
};

const SCHEMAS: Record<string, JsonSchema> = {
  FluxWord: object(
    { word: str(), confidence: num('0..1; 1 when the recogniser gave none.') },
    { start: num('Seconds (when the recogniser timed the word).'), end: num('Seconds.') },
  ),
};

const CLIENT: Record<string, MessageDoc> = {
  audio: {
    summary: 'Audio: binary frames of raw pcm16 at `sample_rate`, any size (about 80 ms recommended).',
    contentType: 'application/octet-stream',
    payload: binary(),
  },
  Configure: {
    summary: 'Changes the end-of-turn thresholds (and key terms) at once, before or after audio.',
    description:
      'Answered by `ConfigureSuccess` with what is now in force. A value out of range, an unknown threshold, ' +
      'an eager threshold above `eot_threshold` or key terms that are not strings are a `ConfigureFailure`, ' +
      'and nothing changes.',
    payload: typed('Configure', {}, { thresholds: object({}, thresholds), keyterms: array(str()) }),
    examples: [
      { type: 'Configure', thresholds: { eot_threshold: 0.8, eager_eot_threshold: 0.5, eot_timeout_ms: 3000 } },
      { type: 'Configure', keyterms: ['Continuum'] },
    ],
  },
  ForceEndTurn: {
    summary:
      'Ends the turn in progress now: `EndOfTurn` with `trigger: manual` (nothing without audio since the last end).',
    payload: typed('ForceEndTurn', {}),
    examples: [{ type: 'ForceEndTurn' }],
  },
  CloseStream: {
    summary: 'The turn in progress ends (`EndOfTurn`), then close 1000.',
    payload: typed('CloseStream', {}),
    examples: [{ type: 'CloseStream' }],
  },
};

const SERVER: Record<string, MessageDoc> = {
  Connected: {
    summary: 'The session has started: the first message (`sequence_id: 0`).',
    payload: typed('Connected', ids),
  },
  TurnInfo: {
    summary: 'The user turn: its start, updates, eager end, resumption and end.',
    description:
      '`StartOfTurn`: speech began. `Update`: about every 250 ms of audio while the turn is open. ' +
      '`EagerEndOfTurn`: the confidence passed `eager_eot_threshold` (eager mode; always before the ' +
      '`EndOfTurn`). `TurnResumed`: after an eager end the user spoke again. `EndOfTurn`: the turn ended, ' +
      'with its `trigger` and the final transcript.',
    payload: typed(
      'TurnInfo',
      {
        event: oneOfValues(FLUX_TURN_EVENTS),
        turn_index: int('From 0, +1 after each `EndOfTurn`.', 0),
        audio_window_start: num('Seconds on the audio timeline.'),
        audio_window_end: num('Seconds on the audio timeline.'),
        transcript: str('The whole turn so far; final on `EndOfTurn`; lower case, unpunctuated.'),
        words: array(ref('FluxWord'), 'Timed (`start`, `end`) when the recogniser timed them (`EndOfTurn`).'),
        end_of_turn_confidence: num('0..1'),
        ...ids,
      },
      { trigger: oneOfValues(['model', 'manual', 'timeout'], '`EndOfTurn` only: what ended the turn.') },
    ),
  },
  ConfigureSuccess: {
    summary: 'A `Configure` took effect: the thresholds now in force and the key terms.',
    payload: typed('ConfigureSuccess', {
      thresholds: object(
        { eot_threshold: thresholds.eot_threshold, eot_timeout_ms: thresholds.eot_timeout_ms },
        { eager_eot_threshold: thresholds.eager_eot_threshold },
        '`eager_eot_threshold` only when eager mode is on.',
      ),
      keyterms: array(str()),
      ...ids,
    }),
  },
  ConfigureFailure: {
    summary: 'A `Configure` was refused; nothing changed and the stream goes on.',
    payload: typed('ConfigureFailure', ids),
  },
  Error: {
    summary: 'A failure: an undecodable client message (then close 1008), or of the service.',
    payload: typed('Error', { code: oneOfValues(FLUX_ERROR_CODES), description: str(), ...ids }),
  },
};

/** What a Flux client hears last on most ends. */
const TURN_IN_PROGRESS = '`EndOfTurn` of a turn in progress';

export const FLUX_ASYNCAPI: SocketDialectDoc = {
  id: 'flux',
  address: '/v2/listen',
  title: 'Deepgram Flux-compatible socket (listen v2)',
  description: [
    'Deepgram Flux’s turn-taking transcription: the official `@deepgram/sdk` v5 `listen.v2` client works ' +
      `unchanged with \`baseUrl\` pointed at the service. Always a transcription session on \`${TRANSCRIPTION_MODEL}\` ` +
      'whose turns end on the end-of-turn confidence; it starts on connect with the thresholds of the query. ' +
      'Same credentials, admission, limits and metering as `/v1/listen`; the 101 answer carries ' +
      '`dg-request-id: <session id>`.',
    '',
    'Every server message carries `request_id` and `sequence_id`. Transcript deltas, acknowledgements, usage and ' +
      'warnings have no Flux message and are not sent; refusals of client messages are not sent either.',
    '',
    `In-band \`Error\` codes: ${FLUX_ERROR_CODES.map((code) => `\`${code}\``).join(', ')}.`,
    '',
    `Close frame texts: ${Object.values(CLOSE_TEXTS)
      .map((text) => `\`${text}\``)
      .join('; ')}.`,
  ].join('\n'),
  query: QUERY,
  security: ['token', 'bearer', 'api_key', 'client_secret_query', 'listen_subprotocol'],
  handshakeRefusals: COMPAT_HANDSHAKE_REFUSALS,
  errorCodes: FLUX_ERROR_CODES,
  clientMessages: CLIENT,
  serverMessages: SERVER,
  sessionEnds: [
    { how: '`CloseStream`', cause: { kind: 'client' }, lastMessages: TURN_IN_PROGRESS },
    { how: 'the client closes the socket (1000, 1001 or no code)', cause: { kind: 'client' }, lastMessages: '-' },
    { how: 'no frame at all for 10 s', cause: { kind: 'idle' }, lastMessages: TURN_IN_PROGRESS },
    {
      how: 'an undecodable text message',
      cause: { kind: 'invalid_input' },
      lastMessages: '`Error` `UNPARSABLE_CLIENT_MESSAGE`, `EndOfTurn` of a turn in progress',
    },
    ...sharedEnds({
      expired: TURN_IN_PROGRESS,
      deleted: TURN_IN_PROGRESS,
      shutdown: TURN_IN_PROGRESS,
      engineFailed: '-',
      noWorker: '`Error` `ENGINE_ERROR`',
      dropped: '-',
      noCapacity: '`Error` `CAPACITY_EXHAUSTED`',
      startFailed: '`Error` `INTERNAL_ERROR`',
    }),
    ...sessionGuardEnds({
      idle: TURN_IN_PROGRESS,
      limit: TURN_IN_PROGRESS,
      fault: '`Error` `INTERNAL_ERROR`',
    }),
  ],
  schemas: SCHEMAS,
};

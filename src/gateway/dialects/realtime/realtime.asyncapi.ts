/**
 * The Realtime-compatible socket (OpenAI Realtime, transcription intent, GA events) in the AsyncAPI
 * document. The conformance test sends every example through parseRealtimeFrame and validates the
 * frames a real session sends against these schemas.
 */
import type { MessageDoc, SessionEndDoc, SocketDialectDoc } from '../../../platform/openapi/socket-dialect-doc';
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
  openObject,
  ref,
  str,
  typed,
  type JsonSchema,
} from '../../../platform/openapi/asyncapi-schemas';
import { COMPAT_HANDSHAKE_REFUSALS } from '../../handshake/handshake-refusals.asyncapi';
import { TRANSCRIPTION_MODEL, VOICECHAT } from '../../../engines';
import { OPENAI_TRANSCRIPTION_MODELS } from './realtime.session-update';
import { sessionGuardEnds, sharedEnds } from '../session-ends.asyncapi';

export const REALTIME_ERROR_CODES = [
  'invalid_json',
  'invalid_event',
  'invalid_type',
  'invalid_value',
  'missing_required_parameter',
  'unknown_parameter',
  'unsupported_event',
  'unsupported_audio_format',
  'invalid_audio',
  'message_too_large',
  'input_audio_buffer_commit_empty',
  'session_config_locked',
  // A language the session's model does not recognise (`session.update`).
  'invalid_parameter',
  'engine_error',
  // Before the close frame of a session the client did not end (see the channel's table). A client
  // event that arrives while the session ends is not answered on its own: this error answers it.
  'session_expired',
  'session_deleted',
  'key_revoked',
  'server_shutdown',
  'engine_failed',
  'engine_unavailable',
  'client_not_reading',
  'capacity_exhausted',
  'internal_error',
  'rate_limit_exceeded',
  'idle_timeout',
] as const;

export const clientId = { event_id: str('The client’s id; an `error` about this event carries it.') };
export const serverId = { event_id: str('Server event id (`event_<n>`).') };
const item = { item_id: str('`item_<session id suffix>_<n>`.') };
const transcription = { ...item, content_index: constant(0) };

const vad = object(
  { type: constant('server_vad') },
  {
    threshold: num('0..1'),
    prefix_padding_ms: int(undefined, 0),
    silence_duration_ms: int(undefined, 0),
    idle_timeout_ms: nullable(int(), 'Accepted, no effect.'),
    create_response: bool('Accepted, no effect.'),
    interrupt_response: bool('Accepted, no effect.'),
  },
);

const SCHEMAS: Record<string, JsonSchema> = {
  RealtimeSessionUpdate: object(
    {},
    {
      type: constant('transcription'),
      include: array(constant('item.input_audio_transcription.logprobs'), 'Accepted; no log probabilities.'),
      audio: object(
        {},
        {
          input: object(
            {},
            {
              format: object({ type: constant('audio/pcm') }, { rate: constant(24000) }),
              noise_reduction: nullable(anyJson(), 'Accepted, not applied.'),
              transcription: object(
                {},
                {
                  model: oneOfValues([TRANSCRIPTION_MODEL, ...OPENAI_TRANSCRIPTION_MODELS]),
                  language: nullable(str('`auto`, ISO-639-1 or BCP-47; null means `auto`.')),
                  prompt: str('Accepted, no effect.'),
                  delay: str('Accepted, no effect.'),
                  keywords: anyJson('Accepted, no effect.'),
                  languages: anyJson('Accepted, no effect.'),
                },
              ),
              turn_detection: nullable(vad, 'null: utterances end only on `input_audio_buffer.commit`.'),
            },
          ),
        },
      ),
    },
    'GA shape. Only what is present changes. Language and turn detection can change until the first audio.',
  ),
  RealtimeTranscriptionSession: object({
    id: str(),
    object: constant('realtime.transcription_session'),
    type: constant('transcription'),
    audio: object({
      input: object({
        format: object({ type: constant('audio/pcm'), rate: constant(24000) }),
        noise_reduction: { type: 'null' },
        transcription: object({ model: constant(TRANSCRIPTION_MODEL) }, { language: str('Left out when `auto`.') }),
        turn_detection: nullable(
          object({
            type: constant('server_vad'),
            threshold: num(),
            prefix_padding_ms: int(),
            silence_duration_ms: int(),
          }),
        ),
      }),
    }),
    expires_at: int('Unix seconds: the session’s own maximum duration.'),
    include: { type: 'array', maxItems: 0 },
  }),
  RealtimeError: object({
    type: oneOfValues(['invalid_request_error', 'server_error']),
    code: oneOfValues(REALTIME_ERROR_CODES),
    message: str(),
    param: nullable(str()),
    event_id: nullable(str('The client event’s `event_id`, else null.')),
  }),
};

const CLIENT: Record<string, MessageDoc> = {
  'input_audio_buffer.append': {
    summary: 'Input audio: base64 pcm16 mono 24 kHz, at most 1 MiB per message. No acknowledgement.',
    payload: typed('input_audio_buffer.append', { audio: str() }, clientId),
    examples: [{ type: 'input_audio_buffer.append', audio: Buffer.alloc(3840).toString('base64') }],
  },
  'input_audio_buffer.commit': {
    summary: 'Ends the utterance now (`turn_detection: null`); an empty buffer is `input_audio_buffer_commit_empty`.',
    payload: typed('input_audio_buffer.commit', {}, clientId),
    examples: [{ type: 'input_audio_buffer.commit' }],
  },
  'input_audio_buffer.clear': {
    summary: 'Drops the utterance in progress; answered by `input_audio_buffer.cleared`.',
    payload: typed('input_audio_buffer.clear', {}, clientId),
    examples: [{ type: 'input_audio_buffer.clear', event_id: 'clear-1' }],
  },
  'session.update': {
    summary: 'Changes language or turn detection; answered by `session.updated`.',
    payload: typed('session.update', { session: ref('RealtimeSessionUpdate') }, clientId),
    examples: [
      {
        type: 'session.update',
        session: {
          type: 'transcription',
          audio: { input: { transcription: { language: 'en' }, turn_detection: null } },
        },
      },
    ],
  },
};

const SERVER: Record<string, MessageDoc> = {
  'session.created': {
    summary: 'First message, on connect: the effective configuration.',
    payload: typed('session.created', { ...serverId, session: ref('RealtimeTranscriptionSession') }),
  },
  'session.updated': {
    summary: 'Answers `session.update` with the whole effective configuration.',
    payload: typed('session.updated', { ...serverId, session: ref('RealtimeTranscriptionSession') }),
  },
  'input_audio_buffer.speech_started': {
    summary: 'Server VAD heard speech begin.',
    payload: typed('input_audio_buffer.speech_started', { ...serverId, ...item, audio_start_ms: int(undefined, 0) }),
  },
  'input_audio_buffer.speech_stopped': {
    summary: 'Server VAD heard speech end; `input_audio_buffer.committed` follows.',
    payload: typed('input_audio_buffer.speech_stopped', { ...serverId, ...item, audio_end_ms: int(undefined, 0) }),
  },
  'input_audio_buffer.committed': {
    summary: 'An utterance became an item.',
    payload: typed('input_audio_buffer.committed', {
      ...serverId,
      ...item,
      previous_item_id: nullable(str(), 'null for the first item.'),
    }),
  },
  'input_audio_buffer.cleared': {
    summary: 'Answers `input_audio_buffer.clear`.',
    payload: typed('input_audio_buffer.cleared', serverId),
  },
  'conversation.item.input_audio_transcription.delta': {
    summary: 'Each word as the engine hears it (may come before the item’s `committed`: key on `item_id`).',
    payload: typed('conversation.item.input_audio_transcription.delta', {
      ...serverId,
      ...transcription,
      delta: str(),
    }),
  },
  'conversation.item.input_audio_transcription.completed': {
    summary: 'The item’s transcript, with its audio duration.',
    payload: typed('conversation.item.input_audio_transcription.completed', {
      ...serverId,
      ...transcription,
      transcript: str(),
      usage: object({ type: constant('duration'), seconds: num() }),
    }),
  },
  'conversation.item.input_audio_transcription.failed': {
    summary: 'A committed item the session ended before transcribing.',
    payload: typed('conversation.item.input_audio_transcription.failed', {
      ...serverId,
      ...transcription,
      error: object({ type: constant('server_error'), code: constant('session_ended'), message: str() }),
    }),
  },
  error: {
    summary: 'A refused client event (the socket stays open), or why the server is ending the session.',
    payload: typed('error', { ...serverId, error: ref('RealtimeError') }),
  },
};

/** How a session on /v1/realtime ends, whichever kind it is: both channels of the address share it. */
export const REALTIME_SESSION_ENDS: readonly SessionEndDoc[] = [
  {
    how: 'the client closes the socket (1000, 1001 or no code: the SDK’s or a browser’s close)',
    cause: { kind: 'client' },
    lastMessages: '-',
  },
  ...sharedEnds({
    expired: '`error` `session_expired`',
    deleted: '`error` `session_deleted`',
    keyRevoked: '`error` `key_revoked`',
    notReading: '`error` `client_not_reading`',
    unanswered: '-',
    shutdown: '`error` `server_shutdown`',
    engineFailed: '`error` `engine_failed`',
    noWorker: '`error` `engine_error`, then `error` `engine_unavailable`',
    dropped: '-',
    noCapacity: '`error` `capacity_exhausted`',
    startFailed: '`error` `internal_error`',
  }),
  ...sessionGuardEnds({
    idle: '`error` `idle_timeout`',
    limit: '`error` `rate_limit_exceeded`',
    fault: '`error` `internal_error`',
  }),
];

export const REALTIME_ASYNCAPI: SocketDialectDoc = {
  id: 'realtime',
  address: '/v1/realtime',
  title: 'Realtime-compatible socket (transcription)',
  description: [
    'OpenAI Realtime in transcription mode: the official `openai` SDK’s `OpenAIRealtimeWS({ intent: ' +
      "'transcription' })` works unchanged (it connects over `wss:`). Always a transcription session on " +
      `\`${TRANSCRIPTION_MODEL}\`; it starts on connect with \`session.created\`.`,
    '',
    'Refused with `error` `unsupported_event`: the conversation events (`response.create`, `conversation.item.*`, …);',
    'the beta `transcription_session.update` is `invalid_value`. Binary frames are `invalid_event`.',
    'Usage is not sent in-band: read it over REST.',
    '',
    `Conversation sessions on this address (\`?model=${VOICECHAT}\` or an alias of it) are the channel ` +
      '`realtime-conversation`.',
  ].join('\n'),
  query: openObject(
    {},
    {
      intent: constant('transcription', 'What the SDK sends; leaving it out means the same.'),
      model: oneOfValues(
        [TRANSCRIPTION_MODEL, ...OPENAI_TRANSCRIPTION_MODELS],
        `All served by ${TRANSCRIPTION_MODEL}. ${VOICECHAT} (or an alias of it) opens a conversation session ` +
          '(channel `realtime-conversation`); any other model is 400.',
      ),
      token: str('A client secret (browsers).'),
    },
  ),
  security: ['bearer', 'token', 'api_key', 'client_secret_query', 'realtime_subprotocol'],
  handshakeRefusals: COMPAT_HANDSHAKE_REFUSALS,
  errorCodes: REALTIME_ERROR_CODES,
  clientMessages: CLIENT,
  serverMessages: SERVER,
  sessionEnds: REALTIME_SESSION_ENDS,
  schemas: SCHEMAS,
};

/**
 * The live socket in the AsyncAPI document. The message tables are keyed by the protocol's own
 * event types (libs/protocol/live-events.ts), so an event added there and not here fails to compile;
 * the conformance test validates real frames against these schemas.
 */
import {
  LIVE_PATH,
  LIVE_REFUSED_EVENTS,
  type LiveClientEvent,
  type LiveServerEvent,
  type LiveWarningCode,
} from '../../../../libs/protocol/live-events';
import type { MessageDoc, SocketDialectDoc } from '../../../platform/openapi/socket-dialect-doc';
import {
  anyJson,
  binary,
  bool,
  int,
  object,
  oneOfValues,
  ref,
  str,
  typed,
  type JsonSchema,
  type SchemaOf,
} from '../../../platform/openapi/asyncapi-schemas';
import {
  echo,
  eventId,
  inputWarnings,
  LIVE_ERROR_CODES,
  LIVE_SCHEMAS,
  serverId,
  STATS_SCHEMA,
  TURN_EVENT_SCHEMA,
  WARNINGS,
} from './live.asyncapi.schemas';
import { START_TIMEOUT_MS } from '../../connection/socket-limits';
import { LIVE_HANDSHAKE_REFUSALS } from '../../handshake/handshake-refusals.asyncapi';
import { sessionGuardEnds, sharedEnds } from '../session-ends.asyncapi';

/** One entry per event type, whose payload lists exactly the event's fields: checked by the compiler. */
type Documented<Event extends { type: string }> = {
  [Type in Event['type']]: MessageDoc & { payload: SchemaOf<Extract<Event, { type: Type }>> };
};

const plain = <F extends Record<string, JsonSchema>>(type: string, summary: string, withId: F) => ({
  summary,
  payload: typed(type, {}, withId),
  examples: [{ type }],
});

const CLIENT: Documented<LiveClientEvent> = {
  'session.start': {
    summary: 'Starts the session; must be the first event.',
    description: `Answered by \`session.started\`. A socket that sends none within ${START_TIMEOUT_MS / 1000} s is closed with 1008.`,
    payload: typed('session.start', { session: ref('LiveSessionConfig') }, eventId),
    examples: [
      { type: 'session.start', event_id: 'start-1', session: { model: 'vendor-voicechat' } },
      {
        type: 'session.start',
        session: { model: 'vendor-asr-streaming', audio: { format: { type: 'audio/pcm', rate: 24000 } } },
      },
    ],
  },
  'session.update': {
    summary: 'Nothing of a session can change after start; no-op `delegation`/`triggers` are accepted.',
    payload: typed(
      'session.update',
      {},
      { ...eventId, session: object({}, { delegation: anyJson(), triggers: anyJson() }) },
    ),
    examples: [{ type: 'session.update', session: { delegation: { type: 'client' } } }],
  },
  'session.close': plain(
    'session.close',
    'Ends the session: `session.closed` (close_requested), then close 1000.',
    eventId,
  ),
  'session.input_audio.append': {
    summary: 'Input audio: base64 of pcm16 24 kHz mono. No acknowledgement.',
    payload: typed('session.input_audio.append', { audio: str('Base64 pcm16; whole 80 ms frames are best.') }, eventId),
    examples: [{ type: 'session.input_audio.append', audio: Buffer.alloc(3840).toString('base64') }],
  },
  'session.input_audio.mute': plain('session.input_audio.mute', 'The engine hears silence until unmute.', eventId),
  'session.input_audio.unmute': plain('session.input_audio.unmute', 'Ends a mute.', eventId),
};

const transcript = (type: string, summary: string) => ({
  summary,
  payload: typed(
    type,
    {
      ...serverId,
      item_id: str(),
      delta: str(),
      start_ms: int('Input: on the input audio timeline; output: on the session’s playback timeline.', 0),
      end_ms: int(undefined, 0),
      done: bool('The item’s last delta.'),
    },
    { transcript: str('The item’s whole text, on the delta with `done: true`.') },
  ),
});
const warning = (type: string, codes: readonly LiveWarningCode[]) => ({
  summary: 'Something about the audio the client should know; the session goes on.',
  description: codes.map((c) => `\`${c}\`: ${WARNINGS[c]}`).join('; '),
  payload: typed(type, { ...serverId, code: oneOfValues(codes), message: str() }),
});

const SERVER: Documented<LiveServerEvent> = {
  'session.started': {
    summary: 'The session runs.',
    payload: typed('session.started', { ...serverId, session: ref('LiveSession') }, echo),
  },
  'session.updated': {
    summary: 'Answers `session.update`.',
    payload: typed('session.updated', { ...serverId, session: ref('LiveSession') }, echo),
  },
  'session.input_audio.muted': {
    summary: 'Answers mute.',
    payload: typed('session.input_audio.muted', serverId, echo),
  },
  'session.input_audio.unmuted': {
    summary: 'Answers unmute.',
    payload: typed('session.input_audio.unmuted', serverId, echo),
  },
  'session.input_transcript.delta': transcript(
    'session.input_transcript.delta',
    'What the user said, word by word; the last delta of an item has `done: true`.',
  ),
  'session.output_transcript.delta': transcript(
    'session.output_transcript.delta',
    'What the persona says (live sessions), in step with its audio.',
  ),
  'session.output_audio.delta': {
    summary: 'Output audio (base64 pcm16 24 kHz), paced in real time. No `event_id` (the convention’s rule).',
    payload: typed('session.output_audio.delta', {
      item_id: str(),
      delta: str(),
      start_ms: int(undefined, 0),
      end_ms: int(undefined, 0),
    }),
  },
  'session.turn.event': {
    summary: 'Turn taking: speech started/stopped, the answer started/done (or interrupted by barge-in).',
    payload: typed('session.turn.event', { ...serverId, event: TURN_EVENT_SCHEMA }),
  },
  'session.input_audio.warning': warning('session.input_audio.warning', inputWarnings),
  'session.output_audio.warning': warning('session.output_audio.warning', ['output_audio_dropped']),
  'session.usage.updated': {
    summary: 'Cumulative usage, every 62 frames (4.96 s of audio) and at the end.',
    payload: typed('session.usage.updated', { ...serverId, usage: ref('LiveUsage') }),
  },
  'session.closed': {
    summary: 'The session ended; the close frame follows.',
    payload: typed(
      'session.closed',
      {
        ...serverId,
        reason: ref('CloseReason'),
        session: ref('LiveSession'),
        usage: ref('LiveUsage'),
        detail: str('The finer cause (see the table of this channel).'),
        stats: STATS_SCHEMA,
      },
      echo,
    ),
  },
  error: {
    summary: 'A refused client event (or a failure); the socket stays open.',
    payload: typed('error', { ...serverId, error: ref('LiveError') }, echo),
  },
};

/** What a live client hears last on every end it can still be told of. */
const CLOSED = '`session.closed`';

export const LIVE_ASYNCAPI: SocketDialectDoc = {
  id: 'live',
  address: LIVE_PATH,
  title: 'Live socket',
  description: [
    'The live protocol at `session.live_url`: a full-duplex conversation with `vendor-voicechat` or a ' +
      'transcription with `vendor-asr-streaming`, following the live convention of the official `openai` SDK ' +
      '(`LiveWS`). The client speaks first with `session.start`.',
    '',
    `Refused with \`error\` \`unsupported_event\`: ${LIVE_REFUSED_EVENTS.map((e) => `\`${e}\``).join(', ')}.`,
    'An API-key session’s own limits (concurrency, credit) are checked at `session.start` and refused with an ' +
      '`error` of the same code; the socket stays open.',
  ].join('\n'),
  query: object({}, { token: str('A client secret (browsers); never an API key.') }),
  security: ['bearer', 'token', 'api_key', 'client_secret_query'],
  handshakeRefusals: LIVE_HANDSHAKE_REFUSALS,
  errorCodes: LIVE_ERROR_CODES,
  clientMessages: {
    ...CLIENT,
    'input_audio.binary': {
      summary: 'Extension: a binary frame is raw pcm16 input (the mirror of binary output).',
      contentType: 'application/octet-stream',
      payload: binary(),
    },
  },
  serverMessages: {
    ...SERVER,
    'output_audio.binary': {
      summary: 'With `audio.output.encoding: "binary"`: output audio as binary frames of raw pcm16.',
      contentType: 'application/octet-stream',
      payload: binary(),
    },
  },
  sessionEnds: [
    { how: '`session.close`', cause: { kind: 'client' }, lastMessages: CLOSED },
    {
      how: 'after `session.start`, the client closes the socket (1000, 1001 or no code)',
      cause: { kind: 'client' },
      lastMessages: '-',
    },
    ...sharedEnds({
      expired: CLOSED,
      deleted: CLOSED,
      notReading: CLOSED,
      shutdown: CLOSED,
      engineFailed: CLOSED,
      dropped: '-',
    }),
    ...sessionGuardEnds({
      idle: CLOSED,
      limit: `\`error\` \`rate_limit_exceeded\`, ${CLOSED}`,
      fault: `\`error\` \`internal_error\`, ${CLOSED}`,
    }),
  ],
  schemas: LIVE_SCHEMAS,
};

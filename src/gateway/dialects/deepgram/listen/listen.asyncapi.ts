/**
 * The Deepgram-compatible socket (`listen`, live streaming) in the AsyncAPI document. Query rules
 * come from listen.query.ts; the conformance test sends every example through parseListenFrame and
 * validates the frames a real session sends against these schemas.
 */
import type { MessageDoc, SocketDialectDoc } from '../../../../platform/openapi/socket-dialect-doc';
import {
  array,
  binary,
  bool,
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
import { CLOSE_REASONS as CLOSE_TEXTS } from './listen.connection';
import { IGNORED_LISTEN_PARAMETERS, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE } from './listen.query';
import { sessionGuardEnds, sharedEnds } from '../../session-ends.asyncapi';

const flag = (description: string): JsonSchema => oneOfValues(['true', 'false'], description);
const channel = { channel: array(int(), '`[0, 1]`: channel 0 of 1.') };
const modelInfo = object({ name: constant(TRANSCRIPTION_MODEL), version: str(), arch: str('The engine.') });

const QUERY = openObject(
  {
    encoding: oneOfValues(
      ['linear16', 'mulaw', 'alaw'],
      'Raw pcm16 little-endian, or G.711 (mulaw, alaw) at 8 kHz; other encodings and containers are 400.',
    ),
    sample_rate: str(
      `An integer from ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE} (8000 with mulaw and alaw); other than 24000 is resampled.`,
    ),
  },
  {
    channels: constant('1'),
    model: str(`Absent, \`${TRANSCRIPTION_MODEL}\` or a Deepgram model name (nova-3, …), all served by it.`),
    language: str('A BCP-47 tag (`en`, `en-US`) or `multi` (= `auto`).'),
    interim_results: flag('An interim `Results` per recognised word.'),
    punctuate: flag('Sentence case and a full stop on finals; `punctuated_word` on every word.'),
    smart_format: flag('Same as `punctuate` (no number or entity formatting).'),
    endpointing: str('Milliseconds (10..10000) of silence that end an utterance, or `false`.'),
    utterance_end_ms: str('100..60000: `UtteranceEnd` once that much audio has arrived after the last word.'),
    vad_events: flag('`SpeechStarted` when speech begins.'),
    token: str('A client secret (browsers).'),
    ...Object.fromEntries(IGNORED_LISTEN_PARAMETERS.map((name) => [name, str('Accepted, no effect.')])),
  },
  'Booleans are the strings `true`/`false`; unknown parameters are ignored.',
);

const SCHEMAS: Record<string, JsonSchema> = {
  ListenWord: object(
    { word: str(), start: num('Seconds.'), end: num('Seconds.'), confidence: num() },
    { punctuated_word: str() },
  ),
};

const control = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, {}),
  examples: [{ type }],
});

const CLIENT: Record<string, MessageDoc> = {
  audio: {
    summary: 'Audio: binary frames of raw pcm16 at `sample_rate`, any size (a sample split across frames is joined).',
    description: 'A 0-byte binary frame is taken as `CloseStream` (the old way).',
    contentType: 'application/octet-stream',
    payload: binary(),
  },
  KeepAlive: control('KeepAlive', 'Keeps the stream alive (no frame for 10 s ends it); nothing else.'),
  Finalize: control('Finalize', 'Ends the utterance now: its final has `from_finalize: true`.'),
  CloseStream: control('CloseStream', 'The last results, then `Metadata`, then close 1000.'),
};

const SERVER: Record<string, MessageDoc> = {
  Results: {
    summary: 'An interim (`is_final: false`) or final transcript of the utterance.',
    payload: typed(
      'Results',
      {
        channel_index: array(int()),
        duration: num('Seconds.'),
        start: num('Seconds, on the client’s audio timeline.'),
        is_final: bool(),
        speech_final: bool('The utterance was ended by endpointing.'),
        channel: object({
          alternatives: array(object({ transcript: str(), confidence: num(), words: array(ref('ListenWord')) })),
        }),
        metadata: object({
          request_id: str('The session id: `GET /v1/sessions/{request_id}` finds it.'),
          model_info: modelInfo,
          model_uuid: str(),
        }),
      },
      { from_finalize: bool('Finals only: a `Finalize` ended the utterance.') },
    ),
  },
  SpeechStarted: {
    summary: 'Speech began (`vad_events=true`).',
    payload: typed('SpeechStarted', { ...channel, timestamp: num('Seconds.') }),
  },
  UtteranceEnd: {
    summary: '`utterance_end_ms` of audio arrived after the last word.',
    payload: typed('UtteranceEnd', { ...channel, last_word_end: num('Seconds.') }),
  },
  Metadata: {
    summary: 'On every end the socket outlives, before the close frame.',
    payload: typed('Metadata', {
      transaction_key: constant('deprecated'),
      request_id: str(),
      sha256: str('Of the audio bytes received.'),
      created: str('ISO 8601 start.'),
      duration: num('Seconds of audio received.'),
      channels: constant(1),
      models: array(str()),
      model_info: { type: 'object', additionalProperties: modelInfo },
    }),
  },
};

export const LISTEN_ASYNCAPI: SocketDialectDoc = {
  id: 'listen',
  address: '/v1/listen',
  title: 'Deepgram-compatible socket (listen)',
  description: [
    'Deepgram’s live `listen` streaming: the official `@deepgram/sdk` v5 client works unchanged with `baseUrl` ' +
      `pointed at the service. Always a transcription session on \`${TRANSCRIPTION_MODEL}\`; it starts on connect ` +
      'and sends nothing until there is something to say. The 101 answer carries `dg-request-id: <session id>`.',
    '',
    'Deepgram has no messages for acknowledgements, usage, warnings or errors, so none are sent. Text that is no ' +
      'control message cannot be decoded and ends the stream.',
    '',
    `Close frame texts: ${Object.values(CLOSE_TEXTS)
      .map((text) => `\`${text}\``)
      .join('; ')}.`,
  ].join('\n'),
  query: QUERY,
  security: ['token', 'bearer', 'api_key', 'client_secret_query', 'listen_subprotocol'],
  handshakeRefusals: COMPAT_HANDSHAKE_REFUSALS,
  errorCodes: [],
  clientMessages: CLIENT,
  serverMessages: SERVER,
  sessionEnds: [
    { how: '`CloseStream` (or a 0-byte frame)', cause: { kind: 'client' }, lastMessages: 'last results, `Metadata`' },
    { how: 'the client closes the socket (1000, 1001 or no code)', cause: { kind: 'client' }, lastMessages: '-' },
    { how: 'no frame at all for 10 s', cause: { kind: 'idle' }, lastMessages: '`Metadata`' },
    { how: 'undecodable text', cause: { kind: 'invalid_input' }, lastMessages: '`Metadata`' },
    ...sharedEnds({
      expired: 'last results, `Metadata`',
      deleted: '`Metadata`',
      shutdown: '`Metadata`',
      engineFailed: '`Metadata`',
      dropped: '-',
      noCapacity: '-',
      startFailed: '-',
    }),
    ...sessionGuardEnds({ idle: '`Metadata`', limit: '`Metadata`', fault: '`Metadata`' }),
  ],
  schemas: SCHEMAS,
};

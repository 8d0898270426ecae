/**
 * Seeded scripts of what hostile or careless clients do on each socket dialect (live, Realtime
 * transcription and conversation, Deepgram listen and Flux): valid and invalid events, bursts of control messages (some over the
 * per-socket limit), audio in the dialect's framing interleaved with them, binary frames of odd
 * sizes, and the ways a socket ends (clean close, a dropped connection, the dialect's own end, a
 * close before the start is answered, a client that goes silent), sometimes followed by a reconnect.
 */
import fc from 'fast-check';
import { trickyJson, trickyString } from './fuzz';

export type DialectName = 'live' | 'realtime' | 'conversation' | 'listen' | 'flux';

export type Step =
  | { readonly kind: 'control'; readonly text: string }
  | { readonly kind: 'invalid'; readonly text: string }
  /** Valid audio, in the dialect's framing, this many milliseconds of it. */
  | { readonly kind: 'audio'; readonly ms: number }
  | { readonly kind: 'binary'; readonly bytes: Buffer }
  /** `count` control messages in one go, without waiting for any answer. */
  | { readonly kind: 'burst'; readonly count: number; readonly text: string }
  | { readonly kind: 'pause'; readonly ms: number };

/**
 * - client_close: a close handshake with 1000 (an end the client asked for on Realtime and Deepgram)
 * - terminate: the TCP connection drops without a close frame
 * - end_message: the dialect's own end (`session.close`, `CloseStream`)
 * - mid_start: the socket drops right after the start was sent, before it can be answered
 * - silent: the client stops sending and waits for the server to end the session (idle rule)
 */
export type Ending = 'client_close' | 'terminate' | 'end_message' | 'mid_start' | 'silent';

export interface Script {
  readonly dialect: DialectName;
  readonly credential: 'api_key' | 'client_secret';
  readonly steps: readonly Step[];
  readonly ending: Ending;
  /** After the end, the same credential connects again (a used secret must be refused, not crash). */
  readonly reconnect: boolean;
}

export interface DialectShape {
  readonly path: string;
  /** The start a live client must send; the others start on connect. */
  readonly start?: string;
  readonly end: string;
  readonly valid: fc.Arbitrary<string>;
  readonly types: readonly string[];
  /** Audio as the client frames it: base64 in JSON, or raw pcm16 at the query's rate in binary frames. */
  readonly audio: (pcm: Buffer) => { data: string | Buffer; binary: boolean };
  readonly secretPath?: string;
  /**
   * How often a step is one of `valid`, and a pause (5 and 2 of 19 by default): a conversation's
   * sequences need more of both, the pauses so that responses reach the upstream before the end.
   */
  readonly weights?: { readonly valid: number; readonly pause: number };
  /** Deepgram's old way to end a stream: an empty binary frame is CloseStream on /v1/listen. */
  readonly emptyBinaryEnds?: boolean;
}

const json = (value: object) => JSON.stringify(value);
const eventId = fc.option(fc.string({ maxLength: 8 }), { nil: undefined });
const silenceMs = fc.constantFrom(200, 500, 600, 800);

/** A session.update that changes turn detection: each one reopens the engine stream before audio. */
const realtimeUpdate = fc
  .record({ event_id: eventId, silence_duration_ms: silenceMs })
  .map(({ event_id, silence_duration_ms }) =>
    json({
      type: 'session.update',
      event_id,
      session: {
        type: 'transcription',
        audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms } } },
      },
    }),
  );

/** Items a conversation script names: few, so that references, deletes and duplicates meet. */
const itemId = fc.constantFrom('a', 'b', 'c', 'd');
/** Texts that grow a conversation's context: small, large, and large in three UTF-8 bytes a character. */
const growingText = fc
  .record({ chars: fc.constantFrom(10, 2000, 20_000, 40_000), letter: fc.constantFrom('word ', '語', '"\\', '\u0001') })
  .map(({ chars, letter }) => letter.repeat(Math.ceil(chars / letter.length)).slice(0, chars));
const userItem = (id: string | undefined, text: string) => ({
  ...(id === undefined ? {} : { id }),
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text }],
});

/** Conversation sequences that grow context: items, references (repeated, many), whole-context responses. */
const conversationEvent = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ id: fc.option(itemId, { nil: undefined }), text: growingText })
      .map(({ id, text }) => json({ type: 'conversation.item.create', item: userItem(id, text) })),
  },
  { weight: 2, arbitrary: fc.constant(json({ type: 'response.create' })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ ids: fc.array(itemId, { minLength: 1, maxLength: 4 }), times: fc.constantFrom(1, 2, 128, 512, 513) })
      .map(({ ids, times }) =>
        json({
          type: 'response.create',
          response: {
            conversation: 'none',
            output_modalities: ['text'],
            input: Array.from({ length: times }, (_, i) => ({ type: 'item_reference', id: ids[i % ids.length] })),
          },
        }),
      ),
  },
  {
    weight: 1,
    arbitrary: growingText.map((text) =>
      json({ type: 'response.create', response: { conversation: 'none', input: [userItem(undefined, text)] } }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ chars: fc.constantFrom(10, 12_000, 20_000), tools: fc.constantFrom(0, 1) })
      .map(({ chars, tools }) =>
        json({
          type: 'session.update',
          session: {
            type: 'realtime',
            instructions: 'i'.repeat(chars),
            tools: Array.from({ length: tools }, () => ({
              type: 'function',
              name: 'f',
              parameters: { type: 'object' },
            })),
          },
        }),
      ),
  },
  { weight: 1, arbitrary: itemId.map((id) => json({ type: 'conversation.item.delete', item_id: id })) },
  { weight: 1, arbitrary: fc.constant(json({ type: 'response.cancel' })) },
);

export const DIALECT_SHAPES: Record<DialectName, DialectShape> = {
  live: {
    path: '/v1/live/sessions',
    start: json({ type: 'session.start', session: { model: 'vendor-asr-streaming' } }),
    end: json({ type: 'session.close' }),
    valid: fc.oneof(
      eventId.map((event_id) => json({ type: 'session.update', event_id, session: {} })),
      eventId.map((event_id) => json({ type: 'session.input_audio.mute', event_id })),
      eventId.map((event_id) => json({ type: 'session.input_audio.unmute', event_id })),
      fc.constant(json({ type: 'session.start', session: { model: 'vendor-asr-streaming' } })),
    ),
    types: ['session.start', 'session.update', 'session.input_audio.append', 'session.input_audio.mute', 'nope'],
    audio: (pcm) => ({
      data: json({ type: 'session.input_audio.append', audio: pcm.toString('base64') }),
      binary: false,
    }),
    secretPath: '/v1/live/client_secrets',
  },
  realtime: {
    path: '/v1/realtime?intent=transcription',
    end: '', // Realtime has no end event: a 1000 close is its end
    valid: fc.oneof(
      { weight: 3, arbitrary: realtimeUpdate },
      eventId.map((event_id) => json({ type: 'input_audio_buffer.commit', event_id })),
      eventId.map((event_id) => json({ type: 'input_audio_buffer.clear', event_id })),
      fc.constant(json({ type: 'response.create' })),
    ),
    types: [
      'session.update',
      'transcription_session.update',
      'input_audio_buffer.append',
      'input_audio_buffer.commit',
      'conversation.item.create',
      'response.cancel',
    ],
    audio: (pcm) => ({
      data: json({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') }),
      binary: false,
    }),
    secretPath: '/v1/realtime/client_secrets',
  },
  conversation: {
    path: '/v1/realtime?model=vendor-voicechat',
    end: '',
    valid: conversationEvent,
    weights: { valid: 16, pause: 10 },
    types: [
      'conversation.item.create',
      'conversation.item.delete',
      'response.create',
      'response.cancel',
      'session.update',
      'input_audio_buffer.append',
    ],
    audio: (pcm) => ({
      data: json({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') }),
      binary: false,
    }),
  },
  listen: {
    path: '/v1/listen?encoding=linear16&sample_rate=24000&interim_results=true',
    end: json({ type: 'CloseStream' }),
    valid: fc.constantFrom(json({ type: 'KeepAlive' }), json({ type: 'Finalize' })),
    types: ['KeepAlive', 'Finalize', 'CloseStream'],
    audio: (pcm) => ({ data: pcm, binary: true }),
    emptyBinaryEnds: true,
  },
  flux: {
    path: '/v2/listen?model=flux-general-en&encoding=linear16&sample_rate=24000',
    end: json({ type: 'CloseStream' }),
    valid: fc.oneof(
      fc
        .record({ eot_threshold: fc.constantFrom(0.6, 0.7, 0.8), eot_timeout_ms: fc.constantFrom(1000, 3000) })
        .map((thresholds) => json({ type: 'Configure', thresholds })),
      fc.constant(json({ type: 'Configure', keyterms: ['Continuum'] })),
      // Refused (ConfigureFailure) but still a control message the server answers.
      fc.constant(json({ type: 'Configure', thresholds: { eot_threshold: 7 } })),
      fc.constant(json({ type: 'ForceEndTurn' })),
    ),
    types: ['Configure', 'ForceEndTurn', 'CloseStream'],
    audio: (pcm) => ({ data: pcm, binary: true }),
  },
};

const invalidText = (shape: DialectShape): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          type: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...shape.types) }, trickyString),
          fields: fc.dictionary(
            fc.constantFrom('session', 'audio', 'event_id', 'item', 'response', 'thresholds', 'keyterms'),
            trickyJson,
            { maxKeys: 3 },
          ),
        })
        .map(({ type, fields }) => json({ ...fields, type })),
    },
    trickyString,
    trickyJson.map((value) => JSON.stringify(value) ?? 'undefined'),
  );

const step = (shape: DialectShape): fc.Arbitrary<Step> =>
  fc.oneof(
    { weight: shape.weights?.valid ?? 5, arbitrary: shape.valid.map((text) => ({ kind: 'control' as const, text })) },
    { weight: 3, arbitrary: invalidText(shape).map((text) => ({ kind: 'invalid' as const, text })) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 400 }).map((ms) => ({ kind: 'audio' as const, ms })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.constantFrom(0, 1, 3, 3839, 3841, 65_537), fc.integer({ min: 0, max: 9000 }))
        .map((size) => ({ kind: 'binary' as const, bytes: Buffer.alloc(size, size % 251) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          // Some within the default burst (200), some well past it.
          count: fc.oneof(fc.integer({ min: 20, max: 150 }), fc.integer({ min: 260, max: 400 })),
          text: shape.valid,
        })
        .map(({ count, text }) => ({ kind: 'burst' as const, count, text })),
    },
    {
      weight: shape.weights?.pause ?? 2,
      arbitrary: fc.integer({ min: 0, max: 60 }).map((ms) => ({ kind: 'pause' as const, ms })),
    },
  );

export const script: fc.Arbitrary<Script> = fc
  .constantFrom<DialectName>('live', 'realtime', 'conversation', 'listen', 'flux')
  .chain((dialect) => {
    const shape = DIALECT_SHAPES[dialect];
    return fc.record({
      dialect: fc.constant(dialect),
      credential: shape.secretPath
        ? fc.constantFrom<Script['credential']>('api_key', 'api_key', 'client_secret')
        : fc.constant<Script['credential']>('api_key'),
      steps: fc.array(step(shape), { maxLength: 14 }),
      ending: fc.constantFrom<Ending>(
        'client_close',
        'client_close',
        'terminate',
        'terminate',
        'end_message',
        'end_message',
        'mid_start',
        'silent',
      ),
      reconnect: fc.boolean(),
    });
  });

import { AppError } from '../../../../platform/errors/app-error';
import { parseFluxFrame } from './flux.protocol';
import { parseFluxQuery } from './flux.query';
import { FluxRenderer } from './flux.render';

const url = (query: string) => `/v2/listen?model=flux-general-en&encoding=linear16&sample_rate=16000&${query}`;

describe('parseFluxQuery', () => {
  it("takes Flux's defaults and ranges", () => {
    expect(parseFluxQuery(url('keyterm=Ada&keyterm=Bob&tag=x&mip_opt_out=true'))).toEqual({
      sampleRate: 16000,
      endOfTurn: { eotThreshold: 0.7, eagerEotThreshold: null, eotTimeoutMs: 5000 },
      keyterms: ['Ada', 'Bob'],
    });
    expect(parseFluxQuery(url('eot_threshold=1&eager_eot_threshold=0.3&eot_timeout_ms=60000')).endOfTurn).toEqual({
      eotThreshold: 1,
      eagerEotThreshold: 0.3,
      eotTimeoutMs: 60000,
    });
    expect(parseFluxQuery('/v2/listen?model=vendor-asr-streaming&encoding=linear16&sample_rate=24000').sampleRate).toBe(
      24000,
    );
  });

  it.each([
    ['eot_threshold=0.49', 'eot_threshold'],
    ['eot_threshold=abc', 'eot_threshold'],
    ['eager_eot_threshold=0.91', 'eager_eot_threshold'],
    ['eot_timeout_ms=499', 'eot_timeout_ms'],
    ['eot_timeout_ms=1000.5', 'eot_timeout_ms'],
    ['eot_threshold=0.6&eager_eot_threshold=0.7', 'eager_eot_threshold'],
    ['mip_opt_out=yes', 'mip_opt_out'],
  ])('refuses %s naming %s', (query, param) => {
    const attempt = () => parseFluxQuery(url(query));
    expect(attempt).toThrow(AppError);
    expect(attempt).toThrow(param);
  });

  it('needs a served model, linear16 and a sample rate', () => {
    expect(() => parseFluxQuery('/v2/listen?encoding=linear16&sample_rate=16000')).toThrow('model');
    expect(() => parseFluxQuery('/v2/listen?model=flux-general-multi&encoding=linear16&sample_rate=16000')).toThrow(
      'Unknown model',
    );
    expect(() => parseFluxQuery('/v2/listen?model=flux-general-en&encoding=opus&sample_rate=16000')).toThrow('opus');
    expect(() => parseFluxQuery('/v2/listen?model=flux-general-en&encoding=linear16')).toThrow('sample_rate');
  });
});

describe('parseFluxFrame', () => {
  const text = (value: unknown) => parseFluxFrame(JSON.stringify(value), false);

  it('reads audio, Configure, ForceEndTurn and CloseStream', () => {
    expect(parseFluxFrame(Buffer.from([1, 2]), true)).toEqual({ kind: 'audio', bytes: Buffer.from([1, 2]) });
    expect(text({ type: 'Configure', thresholds: { eot_threshold: 0.8 }, keyterms: ['a'] })).toEqual({
      kind: 'configure',
      thresholds: { eot_threshold: 0.8 },
      keyterms: ['a'],
    });
    expect(text({ type: 'ForceEndTurn' })).toEqual({ kind: 'force_end_turn' });
    expect(text({ type: 'CloseStream' })).toEqual({ kind: 'close_stream' });
  });

  it('fails a bad Configure softly and anything else hard', () => {
    expect(text({ type: 'Configure', thresholds: { eot_threshold: 0.2 } }).kind).toBe('configure_invalid');
    expect(text({ type: 'Configure', thresholds: { eot_timeout_ms: 700.5 } }).kind).toBe('configure_invalid');
    expect(text({ type: 'Configure', thresholds: { other: 1 } }).kind).toBe('configure_invalid');
    expect(text({ type: 'Configure', keyterms: 'a' }).kind).toBe('configure_invalid');
    expect(text({ type: 'KeepAlive' }).kind).toBe('invalid');
    expect(parseFluxFrame('not json', false).kind).toBe('invalid');
  });
});

describe('FluxRenderer', () => {
  it('numbers every message from 0, follows turns and counts them', () => {
    const renderer = new FluxRenderer('sess_1');
    const session = { id: 'sess_1' } as never;
    const frames = [
      renderer.render({ type: 'started', session }),
      renderer.render({ type: 'speech_started', itemId: 'item_1', startMs: 120 }),
      renderer.render({ type: 'input_transcript', itemId: 'item_1', delta: 'hi', startMs: 0, endMs: 1, done: false }),
      renderer.render({
        type: 'turn',
        phase: 'eager_end',
        itemId: 'item_1',
        startMs: 120,
        endMs: 900,
        transcript: 'hello there',
        confidence: 0.5,
      }),
      renderer.render({
        type: 'turn',
        phase: 'end',
        itemId: 'item_1',
        startMs: 120,
        endMs: 1000,
        transcript: 'hello there',
        confidence: 0.8,
        trigger: 'model',
        words: [
          { word: 'hello', startMs: 120, endMs: 500, confidence: 0.91 },
          { word: 'there', startMs: 500, endMs: 900, confidence: 1 },
        ],
      }),
      renderer.configureSuccess({ eotThreshold: 0.8, eagerEotThreshold: null, eotTimeoutMs: 5000 }, ['Ada']),
      renderer.render({ type: 'speech_started', itemId: 'item_2', startMs: 2000 }),
    ]
      .filter((f): f is string => f !== null)
      .map((f) => JSON.parse(f));
    expect(frames.map((f) => f.sequence_id)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(frames.every((f) => f.request_id === 'sess_1')).toBe(true);
    expect(frames.map((f) => f.event ?? f.type)).toEqual([
      'Connected',
      'StartOfTurn',
      'EagerEndOfTurn',
      'EndOfTurn',
      'ConfigureSuccess',
      'StartOfTurn',
    ]);
    expect(frames[2]).toMatchObject({ audio_window_start: 0.12, audio_window_end: 0.9, end_of_turn_confidence: 0.5 });
    expect(frames[2]).not.toHaveProperty('trigger');
    expect(frames[3]).toMatchObject({
      turn_index: 0,
      trigger: 'model',
      transcript: 'hello there',
      words: [
        { word: 'hello', confidence: 0.91, start: 0.12, end: 0.5 },
        { word: 'there', confidence: 1, start: 0.5, end: 0.9 },
      ],
    });
    expect(frames[4]).toMatchObject({ thresholds: { eot_threshold: 0.8, eot_timeout_ms: 5000 }, keyterms: ['Ada'] });
    expect(frames[5]).toMatchObject({ turn_index: 1, audio_window_start: 2 });
  });
});

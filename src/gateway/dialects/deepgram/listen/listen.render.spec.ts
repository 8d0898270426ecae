import type { ServerEvent } from '../../../../session-core/model/session.events';
import { finalTranscript, transcriptDelta } from '../../../../session-core/testing/transcript-events';
import type { ListenOptions } from './listen.query';
import { ListenRenderer } from './listen.render';

const OPTIONS: ListenOptions = {
  encoding: 'linear16',
  sampleRate: 24000,
  language: null,
  interimResults: true,
  punctuate: false,
  endpointing: null,
  utteranceEndMs: 1000,
  vadEvents: true,
};

function renderer(listen: Partial<ListenOptions> = {}) {
  return new ListenRenderer({
    requestId: 'sess_1',
    listen: { ...OPTIONS, ...listen },
    model: 'vendor-asr-streaming',
    engineName: 'scripted',
    audio: { receivedSeconds: 2.5, sha256: () => 'ab'.repeat(32) },
  });
}

function renderAll(r: ListenRenderer, events: ServerEvent[]): Record<string, any>[] {
  return events.flatMap((event) => {
    const out = r.render(event);
    if (out === null) return [];
    return (Array.isArray(out) ? out : [out]).map((frame) => JSON.parse(String(frame)));
  });
}

const delta = (itemId: string, text: string, startMs: number, endMs = startMs + 400) =>
  transcriptDelta(itemId, text, startMs, endMs);
const final = (itemId: string, transcript: string, startMs: number, endMs: number, words = true) =>
  finalTranscript(itemId, transcript, startMs, endMs, {
    confidence: 0.9,
    ...(words
      ? {
          words: transcript
            .split(' ')
            .map((word, i) => ({ word, startMs: startMs + i * 400, endMs: startMs + (i + 1) * 400, confidence: 0.8 })),
        }
      : {}),
  });

describe('ListenRenderer', () => {
  it('sends nothing on open and shows interim hypotheses as the whole span so far', () => {
    const r = renderer();
    const frames = renderAll(r, [
      { type: 'started', session: { id: 'sess_1', config: {} as never, startedAtMs: 0, expiresAtMs: 1 } },
      { type: 'speech_started', itemId: 'i1', startMs: 240 },
      delta('i1', 'one', 240),
      delta('i1', ' two', 640),
    ]);
    expect(frames[0]).toEqual({ type: 'SpeechStarted', channel: [0, 1], timestamp: 0.24 });
    expect(frames.slice(1).map((f) => [f.channel.alternatives[0].transcript, f.is_final, f.start, f.duration])).toEqual(
      [
        ['one', false, 0.24, 0.4],
        ['one two', false, 0.24, 0.8],
      ],
    );
    expect(frames[2].channel.alternatives[0].words).toEqual([
      { word: 'one', start: 0.24, end: 0.64, confidence: 1 },
      { word: 'two', start: 0.64, end: 1.04, confidence: 1 },
    ]);
  });

  it('marks a final ended by endpointing speech_final, one ended by Finalize from_finalize', () => {
    const r = renderer();
    const [vad, finalize] = renderAll(r, [
      { type: 'speech_stopped', itemId: 'i1', endMs: 800 },
      final('i1', 'one two', 0, 800),
      { type: 'input_committed' },
      final('i2', 'three', 1000, 1400),
    ]);
    expect(vad).toMatchObject({ is_final: true, speech_final: true, from_finalize: false, start: 0, duration: 0.8 });
    expect(vad.channel.alternatives[0]).toEqual({
      transcript: 'one two',
      confidence: 0.9,
      words: [
        { word: 'one', start: 0, end: 0.4, confidence: 0.8 },
        { word: 'two', start: 0.4, end: 0.8, confidence: 0.8 },
      ],
    });
    expect(vad.metadata).toEqual({
      request_id: 'sess_1',
      model_info: { name: 'vendor-asr-streaming', version: '1', arch: 'scripted' },
      model_uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    });
    expect(finalize).toMatchObject({ is_final: true, speech_final: false, from_finalize: true, start: 1 });
  });

  it('punctuates in sentence case with a full stop on finals only', () => {
    const r = renderer({ punctuate: true });
    const [interim, done] = renderAll(r, [delta('i1', 'i think', 0, 800), final('i1', 'i think so', 0, 1200, false)]);
    expect(interim.channel.alternatives[0].transcript).toBe('I think');
    expect(done.channel.alternatives[0].transcript).toBe('I think so.');
    expect(done.channel.alternatives[0].words.map((w: { punctuated_word: string }) => w.punctuated_word)).toEqual([
      'I',
      'think',
      'so.',
    ]);
  });

  it('sends only finals without interim_results, and no SpeechStarted without vad_events', () => {
    const r = renderer({ interimResults: false, vadEvents: false });
    const frames = renderAll(r, [
      { type: 'speech_started', itemId: 'i1', startMs: 0 },
      delta('i1', 'one', 0),
      final('i1', 'one', 0, 400),
    ]);
    expect(frames.map((f) => [f.type, f.is_final])).toEqual([['Results', true]]);
  });

  it('sends an empty final for a Finalize over silence', () => {
    const [empty] = renderAll(renderer(), [{ type: 'input_committed' }, final('i1', '', 0, 800, false)]);
    expect(empty).toMatchObject({ is_final: true, from_finalize: true, start: 0, duration: 0.8 });
    expect(empty.channel.alternatives[0]).toEqual({ transcript: '', confidence: 0.9, words: [] });
  });

  it('ends an utterance once utterance_end_ms of audio passed the last word, once per run of words', () => {
    const r = renderer();
    expect(r.utteranceEnd(5000)).toBeNull();
    renderAll(r, [delta('i1', 'one', 0, 400), final('i1', 'one', 0, 400)]);
    expect(r.utteranceEnd(1399)).toBeNull();
    expect(JSON.parse(r.utteranceEnd(1400)!)).toEqual({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 0.4 });
    expect(r.utteranceEnd(3000)).toBeNull();
    expect(renderer({ utteranceEndMs: null }).utteranceEnd(99_999)).toBeNull();
  });

  it('closes with Metadata describing the stream', () => {
    const r = renderer();
    renderAll(r, [{ type: 'started', session: { id: 'sess_1', config: {} as never, startedAtMs: 0, expiresAtMs: 1 } }]);
    const [metadata] = renderAll(r, [
      {
        type: 'closed',
        reason: 'close_requested',
        detail: 'client_requested',
        session: { id: 'sess_1', config: {} as never, startedAtMs: 0, expiresAtMs: 1 },
        usage: { frames: 32, seconds: 2.56 },
        stats: {} as never,
      },
    ]);
    expect(metadata).toEqual({
      type: 'Metadata',
      transaction_key: 'deprecated',
      request_id: 'sess_1',
      sha256: 'ab'.repeat(32),
      created: '1970-01-01T00:00:00.000Z',
      duration: 2.5,
      channels: 1,
      models: [expect.any(String)],
      model_info: { [metadata.models[0]]: { name: 'vendor-asr-streaming', version: '1', arch: 'scripted' } },
    });
  });

  it('shows nothing for acks, usage, warnings and errors', () => {
    const r = renderer();
    for (const event of [
      { type: 'input_cleared' },
      { type: 'usage', usage: { frames: 1, seconds: 0.08 } },
      { type: 'warning', code: 'input_dropped', message: 'x' },
      { type: 'error', error: { code: 'x', message: 'x', param: null, origin: 'client' } },
    ] as ServerEvent[]) {
      expect(r.render(event)).toBeNull();
    }
  });
});

import {
  EngineCapacityError,
  FRAME_BYTES,
  type EngineEvent,
  type EngineStream,
  type EngineStreamConfig,
} from '../../session-core';
import { frameRms, makeTone } from './scripted.audio';
import { ScriptedEngine } from './scripted.engine';

const VAD = { type: 'server_vad', threshold: 0.5, silenceDurationMs: 480, prefixPaddingMs: 300 } as const;
const LIVE: EngineStreamConfig = {
  sessionId: 's',
  type: 'live',
  model: 'vendor-voicechat',
  language: 'auto',
  voice: 'aria',
  turnDetection: VAD,
};
const SPEECH = makeTone(220, 80, 0.3);
const SILENCE = Buffer.alloc(FRAME_BYTES);

async function open(config: Partial<EngineStreamConfig> = {}, engine = new ScriptedEngine()) {
  const events: EngineEvent[] = [];
  const stream = await engine.open({ ...LIVE, ...config }, (e) => events.push(e));
  const push = (frame: Buffer, count: number) => {
    for (let i = 0; i < count; i++) stream.pushAudio(frame);
  };
  return { engine, stream, events, push, types: () => events.map((e) => e.type) };
}

function final(events: EngineEvent[]) {
  return events.find((e) => e.type === 'input_transcript' && e.done);
}

describe('scripted audio helpers', () => {
  it('measures loudness on the int16 scale', () => {
    expect(frameRms(SILENCE)).toBe(0);
    expect(frameRms(Buffer.alloc(0))).toBe(0);
    expect(frameRms(makeTone(440, 80, 0.5))).toBeCloseTo((32767 * 0.5) / Math.SQRT2, -2);
  });

  it('makes a tone of the asked length', () => {
    expect(makeTone(440, 960, 0.25)).toHaveLength(960 * 48);
  });
});

describe('ScriptedEngine turns', () => {
  it('hears speech, transcribes it as the scripted words and ends the turn after the silence', async () => {
    const { events, push, types } = await open({ type: 'transcription', voice: null });
    push(SILENCE, 2);
    push(SPEECH, 11); // 880 ms of speech from 160 ms
    push(SILENCE, 5);
    expect(types()).toEqual(['speech_started', 'input_transcript', 'input_transcript']);
    push(SILENCE, 1); // 480 ms of silence
    expect(events[0]).toEqual({ type: 'speech_started', itemId: 'item_in_1', audioStartMs: 160 });
    expect(events[1]).toEqual({
      type: 'input_transcript',
      itemId: 'item_in_1',
      delta: 'one',
      startMs: 160,
      endMs: 560,
      done: false,
    });
    expect(events[2]).toMatchObject({ delta: ' two', startMs: 560, endMs: 960 });
    expect(events[3]).toEqual({ type: 'speech_stopped', itemId: 'item_in_1', audioEndMs: 1040 });
    expect(final(events)).toMatchObject({ transcript: 'one two', startMs: 160, endMs: 1040, done: true, delta: '' });
    expect(types()).not.toContain('response_started'); // transcription sessions do not answer
  });

  it('gives a very short turn its first word', async () => {
    const { events, push } = await open({ type: 'transcription', voice: null });
    push(SPEECH, 1);
    push(SILENCE, 6);
    expect(final(events)).toMatchObject({ transcript: 'one' });
  });

  it('answers a live turn with the fixed text and a tone of the fixed length', async () => {
    const { events, push } = await open();
    push(SPEECH, 5);
    push(SILENCE, 6);
    const reply = events.slice(events.findIndex((e) => e.type === 'response_started'));
    expect(reply[0]).toEqual({ type: 'response_started', itemId: 'item_out_1' });
    const words = reply.flatMap((e) => (e.type === 'output_transcript' ? [e.delta] : []));
    expect(words.join('')).toBe('I heard you loud and clear');
    const audio = reply.flatMap((e) => (e.type === 'output_audio' ? [e.pcm.length] : []));
    expect(audio.reduce((a, b) => a + b, 0)).toBe(960 * 48);
    expect(reply.at(-1)).toEqual({ type: 'response_done', itemId: 'item_out_1', interrupted: false });
  });

  it('ends turns only on commit when turn detection is off, without speech events', async () => {
    const { events, push, stream, types } = await open({ turnDetection: null });
    push(SPEECH, 6);
    push(SILENCE, 20);
    expect(types()).toEqual(['input_transcript']);
    stream.commit();
    expect(final(events)).toMatchObject({ transcript: 'one', endMs: 480 });
    expect(types()).toContain('response_started');
    expect(types()).not.toContain('speech_started');
  });

  it('commits audio without speech as an item with an empty transcript, and an empty buffer as nothing', async () => {
    const { events, push, stream } = await open({ turnDetection: null, type: 'transcription', voice: null });
    stream.commit();
    expect(events).toEqual([]);
    push(SILENCE, 3);
    stream.commit();
    expect(events).toEqual([
      {
        type: 'input_transcript',
        itemId: 'item_in_1',
        delta: '',
        startMs: 0,
        endMs: 240,
        done: true,
        transcript: '',
        confidence: 1,
        words: [],
      },
    ]);
  });

  it('clear drops the turn in progress without a final transcript', async () => {
    const { events, push, stream } = await open({ turnDetection: null });
    push(SPEECH, 6);
    stream.clear();
    stream.commit();
    expect(final(events)).toBeUndefined();
  });

  it('produces a chunked reply per pushed frame and stops it on interrupt', async () => {
    const engine = new ScriptedEngine({ reply: { text: 'a b c', toneHz: 440, durationMs: 960, chunkMs: 160 } });
    const { events, push, stream, types } = await open({}, engine);
    push(SPEECH, 5);
    push(SILENCE, 6);
    expect(types().filter((t) => t === 'output_audio')).toHaveLength(1);
    push(SILENCE, 2);
    expect(types().filter((t) => t === 'output_audio')).toHaveLength(3);
    stream.interrupt();
    push(SILENCE, 10);
    expect(types().filter((t) => t === 'output_audio')).toHaveLength(3);
    expect(events.at(-1)).toEqual({ type: 'response_done', itemId: 'item_out_1', interrupted: true });
  });

  it('transcribes the turn in progress on close and then ignores everything', async () => {
    const { events, push, stream, types } = await open();
    push(SPEECH, 6);
    await stream.close();
    expect(final(events)).toMatchObject({ transcript: 'one' });
    expect(types()).not.toContain('response_started');
    const count = events.length;
    push(SPEECH, 10);
    expect(events).toHaveLength(count);
  });
});

describe('ScriptedEngine capacity', () => {
  it('refuses streams beyond its capacity and frees a slot on close', async () => {
    const engine = new ScriptedEngine({ maxStreams: 2 });
    const streams: EngineStream[] = [];
    for (let i = 0; i < 2; i++) streams.push(await engine.open(LIVE, () => undefined));
    expect(engine.hasCapacity()).toBe(false);
    expect(engine.capacity()).toEqual({ inUse: 2, max: 2 });
    await expect(engine.open(LIVE, () => undefined)).rejects.toBeInstanceOf(EngineCapacityError);
    await streams[0].close();
    await streams[0].close();
    expect(engine.capacity().inUse).toBe(1);
    await engine.shutdown();
    expect(engine.capacity().inUse).toBe(0);
  });
});

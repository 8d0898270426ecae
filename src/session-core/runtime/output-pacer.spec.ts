import { FRAME_BYTES } from '../engine/engine.port';
import { OutputPacer, type OutputPacerOptions } from './output-pacer';
import type { ServerEvent } from '../model/session.events';
import { FakeClock } from '../testing/fake-clock';

const ORIGIN = 1_767_225_600_000;

function setup(overrides: Partial<OutputPacerOptions> = {}) {
  const clock = new FakeClock(ORIGIN);
  const sent: ServerEvent[] = [];
  const drained: { itemId: string; atMs: number }[] = [];
  const transport = { backlog: 0 };
  const pacer = new OutputPacer({
    clock,
    originMs: ORIGIN,
    emit: (event) => sent.push(event),
    drained: (itemId) => drained.push({ itemId, atMs: clock.now() - ORIGIN }),
    backlog: () => transport.backlog,
    ...overrides,
  });
  const audio = () => sent.flatMap((e) => (e.type === 'output_audio' ? [e] : []));
  return { clock, sent, drained, transport, pacer, audio };
}

describe('OutputPacer timing', () => {
  it('sends 80 ms frames in real time, one frame ahead, with session-timeline timing', () => {
    const { clock, pacer, audio } = setup();
    clock.advance(1000);
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 5));
    expect(audio().map((e) => [e.startMs, e.endMs])).toEqual([
      [1000, 1080],
      [1080, 1160],
    ]);
    clock.advance(79);
    expect(audio()).toHaveLength(2);
    clock.advance(1);
    expect(audio()).toHaveLength(3);
    clock.advance(160);
    expect(audio().map((e) => e.startMs)).toEqual([1000, 1080, 1160, 1240, 1320]);
    expect(audio().every((e) => e.pcm.length === FRAME_BYTES && e.itemId === 'out1')).toBe(true);
  });

  it('sends nothing ahead with a zero lead', () => {
    const { clock, pacer, audio } = setup({ leadMs: 0 });
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 3));
    expect(audio()).toHaveLength(1);
    clock.advance(80);
    expect(audio()).toHaveLength(2);
  });

  it('re-frames arbitrary chunks and sends a short tail at the end of a response', () => {
    const { clock, pacer, audio, drained } = setup();
    pacer.pushAudio('out1', Buffer.alloc(1000, 1));
    expect(audio()).toHaveLength(0);
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES, 2));
    pacer.endItem('out1');
    clock.advance(1000);
    expect(audio().map((e) => e.pcm.length)).toEqual([FRAME_BYTES, 1000]);
    expect(audio()[0].pcm[999]).toBe(1);
    expect(audio()[0].pcm[1000]).toBe(2);
    expect(audio()[1]).toMatchObject({ startMs: 80, endMs: 101 }); // 1000 bytes = 20.8 ms
    expect(drained).toEqual([{ itemId: 'out1', atMs: 21 }]); // sent one lead (80 ms) before it ends
  });

  it('reports a response drained when its last frame is due, and resumes on a fresh timeline after a pause', () => {
    const { clock, pacer, audio, drained } = setup();
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 3));
    pacer.endItem('out1');
    clock.advance(200);
    expect(drained).toEqual([{ itemId: 'out1', atMs: 160 }]);
    clock.advance(5000);
    pacer.pushAudio('out2', Buffer.alloc(FRAME_BYTES));
    expect(audio().at(-1)).toMatchObject({ itemId: 'out2', startMs: 5200 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('releases output words when playback reaches them, on the session timeline', () => {
    const { clock, pacer, sent } = setup({ leadMs: 0 });
    clock.advance(500);
    pacer.pushTranscript({ itemId: 'out1', delta: 'hello', startMs: 0, endMs: 200, done: false });
    pacer.pushTranscript({
      itemId: 'out1',
      delta: ' there',
      startMs: 240,
      endMs: 400,
      done: true,
      transcript: 'hello there',
    });
    expect(sent).toHaveLength(0); // nothing plays yet
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 5));
    const words = () => sent.flatMap((e) => (e.type === 'output_transcript' ? [e] : []));
    expect(words()).toEqual([
      { type: 'output_transcript', itemId: 'out1', delta: 'hello', startMs: 500, endMs: 700, done: false },
    ]);
    clock.advance(160);
    expect(words()).toHaveLength(1);
    clock.advance(80);
    expect(words()[1]).toEqual({
      type: 'output_transcript',
      itemId: 'out1',
      delta: ' there',
      startMs: 740,
      endMs: 900,
      done: true,
      transcript: 'hello there',
    });
  });

  it('releases the remaining words of a response when it ends', () => {
    const { clock, pacer, sent } = setup();
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES));
    pacer.pushTranscript({ itemId: 'out1', delta: 'late', startMs: 5000, endMs: 5100, done: true });
    pacer.endItem('out1');
    clock.advance(100);
    expect(sent.map((e) => e.type)).toEqual(['output_audio', 'output_transcript']);
  });
});

describe('OutputPacer hold (speech suspected)', () => {
  it('sends nothing while held; released soon, output goes on in step as if never held', () => {
    const { clock, pacer, audio, drained } = setup();
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 10));
    pacer.endItem('out1');
    clock.advance(100); // the frames starting at 0, 80 and 160 are out
    const before = audio().length;
    pacer.hold();
    clock.advance(60);
    expect(audio()).toHaveLength(before);
    pacer.release();
    // 160 ms: the frame at 240 was due at 160 (one lead early): the client never ran dry.
    expect(audio().map((e) => e.startMs)).toEqual([0, 80, 160, 240]);
    clock.advance(1000);
    expect(audio().map((e) => e.startMs)).toEqual([0, 80, 160, 240, 320, 400, 480, 560, 640, 720]);
    expect(drained).toEqual([{ itemId: 'out1', atMs: 720 }]);
  });

  it('resumes from now after a hold longer than the lead: the rest is not crammed into the past', () => {
    const { clock, pacer, audio } = setup();
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 6));
    pacer.hold();
    expect(audio().map((e) => e.startMs)).toEqual([0, 80]);
    clock.advance(300);
    pacer.release();
    expect(audio().map((e) => e.startMs)).toEqual([0, 80, 300, 380]);
  });

  it('ends a hold nobody releases after maxHoldMs, and a flush ends it at once', () => {
    const { clock, pacer, audio } = setup({ maxHoldMs: 250 });
    pacer.hold();
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 4));
    clock.advance(249);
    expect(audio()).toHaveLength(0);
    clock.advance(1);
    expect(audio().map((e) => e.startMs)).toEqual([250, 330]);
    pacer.hold();
    pacer.flush();
    expect(clock.pendingTimers).toBe(0);
    pacer.pushAudio('out2', Buffer.alloc(FRAME_BYTES));
    clock.advance(100);
    expect(audio().at(-1)).toMatchObject({ itemId: 'out2' });
  });
});

describe('OutputPacer bounds', () => {
  it('flushes on barge-in: no more frames, words or drains of what was queued', () => {
    const { clock, pacer, audio, drained, sent } = setup();
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 50));
    pacer.pushTranscript({ itemId: 'out1', delta: 'never', startMs: 1000, endMs: 1100, done: true });
    pacer.endItem('out1');
    clock.advance(160);
    const before = audio().length;
    pacer.flush();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(10_000);
    expect(audio()).toHaveLength(before);
    expect(drained).toEqual([]);
    expect(sent.some((e) => e.type === 'output_transcript')).toBe(false);
  });

  it('drops frames while the client is not reading, warns once per episode, and keeps the timeline', () => {
    const { clock, pacer, audio, sent, transport } = setup({ softBacklogBytes: 1000 });
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 10));
    transport.backlog = 5000;
    clock.advance(320);
    transport.backlog = 0;
    clock.advance(400);
    const warnings = sent.filter((e) => e.type === 'warning');
    expect(warnings).toEqual([
      { type: 'warning', code: 'output_audio_dropped', message: expect.stringContaining('not reading') },
    ]);
    expect(audio().map((e) => e.startMs)).toEqual([0, 80, 480, 560, 640, 720]);
    expect(pacer.stats).toEqual({ framesSent: 6, framesDropped: 4, warnings: 1 });
    transport.backlog = 5000;
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 2));
    clock.advance(200);
    expect(sent.filter((e) => e.type === 'warning')).toHaveLength(2);
  });

  it('caps the queue and drops what an engine produces beyond it', () => {
    const { pacer, sent } = setup({ maxQueuedMs: 800 });
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 20));
    expect(pacer.stats.framesDropped).toBe(10); // 10 queued (2 of them sent at once), the rest dropped
    expect(sent.filter((e) => e.type === 'warning')).toHaveLength(1);
  });

  it('ignores everything once stopped', () => {
    const { clock, pacer, sent } = setup();
    pacer.stop();
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES));
    pacer.pushTranscript({ itemId: 'out1', delta: 'x', startMs: 0, endMs: 1, done: true });
    pacer.endItem('out1');
    clock.advance(1000);
    expect(sent).toEqual([]);
  });

  it('survives being flushed from inside its own emit (runtime closing mid-pump)', () => {
    const clock = new FakeClock(ORIGIN);
    const sent: ServerEvent[] = [];
    const pacer: OutputPacer = new OutputPacer({
      clock,
      originMs: ORIGIN,
      emit: (event) => {
        sent.push(event);
        pacer.stop();
      },
      drained: () => undefined,
      backlog: () => 0,
    });
    pacer.pushAudio('out1', Buffer.alloc(FRAME_BYTES * 5));
    clock.advance(1000);
    expect(sent).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });
});

import fc from 'fast-check';
import { FRAME_BYTES } from '../../../session-core';
import { makeTone } from '../../../engines/scripted/scripted.audio';
import { ScriptedEngine } from '../../../engines/scripted/scripted.engine';
import type { SessionConfig } from '../../../session-core/model/session.types';
import { FakeClock, settle } from '../../../session-core/testing/fake-clock';
import { FakeMeter, FakeStore, FakeTransport } from '../../../session-core/testing/fakes';
import { LiveConnection } from './live.connection';

const SPEECH = makeTone(220, 80, 0.3);
const SILENCE = Buffer.alloc(FRAME_BYTES);

function connect(lock: SessionConfig | null = null) {
  const clock = new FakeClock();
  const store = new FakeStore();
  const meter = new FakeMeter();
  const transport = new FakeTransport();
  const connection = new LiveConnection({
    sessionId: 'sess_live',
    engine: new ScriptedEngine(),
    store,
    meter,
    transport,
    clock,
    lock,
  });
  const send = (event: object) => connection.onMessage(JSON.stringify(event), false);
  const append = (pcm: Buffer) => send({ type: 'session.input_audio.append', audio: pcm.toString('base64') });
  return { clock, store, meter, transport, connection, send, append };
}

async function stream(c: ReturnType<typeof connect>, frame: Buffer, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    c.append(frame);
    await c.clock.advanceAsync(80, 80);
  }
}

describe('LiveConnection with the scripted engine', () => {
  it('runs a whole conversation the way the convention describes', async () => {
    const c = connect();
    c.send({
      type: 'session.start',
      event_id: 'start1',
      session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } },
    });
    await settle();
    await stream(c, SPEECH, 13);
    await stream(c, SILENCE, 60);
    c.send({ type: 'session.close', event_id: 'close1' });
    await c.connection.runtime.done;

    const events = c.transport.events;
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('session.started');
    expect(events[0]).toMatchObject({
      client_event_id: 'start1',
      session: { id: 'sess_live', status: 'active', model: 'vendor-voicechat' },
    });
    expect(
      events.filter((e) => e.type === 'session.turn.event').map((e) => (e.event as { type: string }).type),
    ).toEqual(['speech_started', 'speech_stopped', 'end_of_turn', 'response_started', 'response_done']);
    const finals = events.filter((e) => e.type === 'session.input_transcript.delta' && e.done === true);
    expect(finals).toEqual([
      expect.objectContaining({ transcript: 'one two', start_ms: 0, end_ms: 1040, item_id: 'item_in_1' }),
    ]);
    const audio = events.filter((e) => e.type === 'session.output_audio.delta');
    expect(audio).toHaveLength(12);
    const starts = audio.map((e) => e.start_ms as number);
    expect(starts.every((s, i) => i === 0 || s - starts[i - 1] === 80)).toBe(true);
    const said = events
      .filter((e) => e.type === 'session.output_transcript.delta')
      .map((e) => e.delta)
      .join('');
    expect(said).toBe('I heard you loud and clear');
    expect(types.slice(-2)).toEqual(['session.usage.updated', 'session.closed']);

    const closed = events.at(-1)!;
    const metered = c.meter.written.reduce((sum, b) => sum + b.frames, 0);
    expect(closed).toMatchObject({
      reason: 'close_requested',
      client_event_id: 'close1',
      usage: { frames: 73, seconds: 5.84 },
    });
    expect(metered).toBe(73);
    expect(c.store.closings[0].closing.usage).toEqual({ frames: 73, seconds: 5.84 });
    expect(c.transport.closed).toEqual({ code: 1000, reason: 'client_requested' });

    const ids = events.filter((e) => e.type !== 'session.output_audio.delta').map((e) => e.event_id);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(audio.every((e) => !('event_id' in e))).toBe(true);
  });

  it('sends binary output frames when the session asks for them', async () => {
    const c = connect();
    c.send({
      type: 'session.start',
      session: { model: 'vendor-voicechat', audio: { output: { encoding: 'binary' } } },
    });
    await settle();
    await stream(c, SPEECH, 6);
    await stream(c, SILENCE, 20);
    const binary = c.transport.frames.filter((f) => Buffer.isBuffer(f));
    expect(binary.length).toBeGreaterThanOrEqual(12);
    expect(binary.every((f) => f.length === FRAME_BYTES)).toBe(true);
    expect(c.transport.types()).not.toContain('session.output_audio.delta');
  });

  it('acknowledges mute and unmute and warns about audio while muted', async () => {
    const c = connect();
    c.send({ type: 'session.start', session: { model: 'vendor-asr-streaming' } });
    await settle();
    c.send({ type: 'session.input_audio.mute', event_id: 'm1' });
    await stream(c, SPEECH, 3);
    c.send({ type: 'session.input_audio.unmute' });
    expect(c.transport.events.slice(1)).toEqual([
      { type: 'session.input_audio.muted', event_id: 'evt_2', client_event_id: 'm1' },
      {
        type: 'session.input_audio.warning',
        event_id: 'evt_3',
        code: 'audio_while_muted',
        message: expect.any(String),
      },
      { type: 'session.input_audio.unmuted', event_id: 'evt_4' },
    ]);
  });

  it('answers refusals with errors and keeps the socket usable', async () => {
    const c = connect();
    c.append(SILENCE);
    c.send({ type: 'response.create', event_id: 'r1' });
    c.connection.onMessage('{oops', false);
    c.send({
      type: 'session.start',
      event_id: 's1',
      session: { model: 'vendor-voicechat', audio: { output: { voice: 'marin' } } },
    });
    c.send({ type: 'session.start', event_id: 's2', session: { model: 'vendor-voicechat' } });
    await settle();
    const events = c.transport.events;
    expect(events.map((e) => (e.type === 'error' ? (e.error as { code: string }).code : e.type))).toEqual([
      'session_not_started',
      'unsupported_event',
      'invalid_json',
      'invalid_voice',
      'session.started',
    ]);
    expect(events[1]).toMatchObject({ client_event_id: 'r1', error: { param: 'type', client_event_id: 'r1' } });
    expect(events[3]).toMatchObject({ error: { param: 'session.audio.output.voice' } });
    expect(c.transport.closed).toBeNull();
  });

  it('refuses a start that asks for other values than its client secret', async () => {
    const lock: SessionConfig = {
      type: 'transcription',
      model: 'vendor-asr-streaming',
      voice: null,
      language: 'en',
      turnDetection: null,
      outputEncoding: 'base64',
    };
    const c = connect(lock);
    c.send({ type: 'session.start', event_id: 'x', session: { model: 'vendor-voicechat' } });
    c.send({ type: 'session.start', session: {} });
    await settle();
    expect(c.transport.events[0]).toMatchObject({
      type: 'error',
      error: { code: 'session_config_locked', param: 'session.model' },
    });
    expect(c.transport.events[1]).toMatchObject({
      type: 'session.started',
      session: { type: 'transcription', model: 'vendor-asr-streaming' },
    });
  });

  it('records a dropped socket without sending to it', async () => {
    const c = connect();
    c.send({ type: 'session.start', session: { model: 'vendor-voicechat' } });
    await settle();
    await stream(c, SPEECH, 3);
    const sent = c.transport.frames.length;
    c.connection.onClose(1006);
    await c.connection.runtime.done;
    expect(c.transport.frames).toHaveLength(sent);
    expect(c.store.closings[0].closing).toMatchObject({ reason: 'connection_lost', usage: { frames: 3 } });
  });

  it.each([
    [1000, 'close_requested'],
    [1005, 'close_requested'],
    [1006, 'connection_lost'],
  ])('records a started session whose client closed with %i as %s', async (code, reason) => {
    const c = connect();
    c.send({ type: 'session.start', session: { model: 'vendor-voicechat' } });
    await settle();
    await stream(c, SPEECH, 2);
    c.connection.onClose(code);
    await c.connection.runtime.done;
    expect(c.store.closings[0].closing).toMatchObject({ reason, usage: { frames: 2 } });
  });

  it('ends a socket closed before session.start without a session to record', async () => {
    const c = connect();
    c.connection.onClose(1000);
    await c.connection.runtime.done;
    expect(c.connection.runtime.phase).toBe('closed');
    expect(c.store.closings).toEqual([]);
  });

  it('answers every fuzzed text frame before the start with exactly one error, and never throws', () => {
    const frame = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          type: fc.oneof(
            fc.string(),
            fc.constantFrom('session.update', 'session.close', 'session.input_audio.append', 'response.create'),
          ),
          event_id: fc.option(fc.string(), { nil: undefined }),
          audio: fc.option(fc.base64String(), { nil: undefined }),
        })
        .map((e) => JSON.stringify(e)),
    );
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 20 }), (frames) => {
        const c = connect();
        const texts = frames.filter((f) => !f.includes('session.start'));
        for (const text of texts) c.connection.onMessage(text, false);
        expect(c.transport.types()).toEqual(texts.map(() => 'error'));
      }),
      { numRuns: 100 },
    );
  });
});

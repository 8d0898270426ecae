import type { ServerEvent, SessionDescriptor } from '../../../session-core';
import { LIVE_CONFIG } from '../../../session-core/testing/live-config';
import { LiveRenderer } from './live.render';

const SESSION: SessionDescriptor = {
  id: 'sess_abc',
  config: LIVE_CONFIG,
  startedAtMs: 1_767_225_600_000,
  expiresAtMs: 1_767_225_720_500,
};
const RESOURCE = {
  id: 'sess_abc',
  object: 'session',
  type: 'live',
  model: 'vendor-voicechat',
  status: 'active',
  expires_at: 1_767_225_721,
  audio: { format: { type: 'audio/pcm', rate: 24000 }, output: { voice: 'aria', encoding: 'base64' } },
  instructions: null,
  input: [],
  delegation: { type: 'client' },
  store: false,
};
const STATS = {
  durationMs: 1000,
  inputFrames: 12,
  mutedFrames: 1,
  droppedInputMs: 0,
  outputFrames: 3,
  outputDroppedFrames: 0,
  turns: 1,
  responses: 1,
  interruptions: 0,
  warnings: 2,
  errors: 1,
};

function json(renderer: LiveRenderer, event: ServerEvent): Record<string, unknown> {
  const frame = renderer.render(event);
  if (typeof frame !== 'string') throw new Error(`expected a text frame, got ${String(frame)}`);
  return JSON.parse(frame) as Record<string, unknown>;
}

describe('LiveRenderer', () => {
  it('renders session.started with the session resource and the echoed client event id', () => {
    expect(json(new LiveRenderer(), { type: 'started', session: SESSION, clientEventId: 'c1' })).toEqual({
      type: 'session.started',
      event_id: 'evt_1',
      client_event_id: 'c1',
      session: RESOURCE,
    });
  });

  it('leaves client_event_id out when the client sent no event_id', () => {
    const event = json(new LiveRenderer(), { type: 'muted' });
    expect(event).toEqual({ type: 'session.input_audio.muted', event_id: 'evt_1' });
  });

  it('numbers server event ids uniquely and renders the acks', () => {
    const renderer = new LiveRenderer();
    const ids = [
      json(renderer, { type: 'updated', session: SESSION, clientEventId: 'u' }),
      json(renderer, { type: 'muted', clientEventId: 'm' }),
      json(renderer, { type: 'unmuted' }),
    ];
    expect(ids.map((e) => [e.type, e.event_id, e.client_event_id])).toEqual([
      ['session.updated', 'evt_1', 'u'],
      ['session.input_audio.muted', 'evt_2', 'm'],
      ['session.input_audio.unmuted', 'evt_3', undefined],
    ]);
  });

  it('renders transcripts with item id, integer timing, done and the final transcript', () => {
    const renderer = new LiveRenderer();
    expect(
      json(renderer, {
        type: 'input_transcript',
        itemId: 'i1',
        delta: 'one',
        startMs: 0,
        endMs: 400,
        done: false,
        confidence: 1,
      }),
    ).toEqual({
      type: 'session.input_transcript.delta',
      event_id: 'evt_1',
      item_id: 'i1',
      delta: 'one',
      start_ms: 0,
      end_ms: 400,
      done: false,
    });
    expect(
      json(renderer, {
        type: 'output_transcript',
        itemId: 'o1',
        delta: '',
        startMs: 10,
        endMs: 90,
        done: true,
        transcript: 'hi',
      }),
    ).toEqual({
      type: 'session.output_transcript.delta',
      event_id: 'evt_2',
      item_id: 'o1',
      delta: '',
      start_ms: 10,
      end_ms: 90,
      done: true,
      transcript: 'hi',
    });
  });

  it('keeps transcript timing to non-negative integers with end >= start', () => {
    const event = json(new LiveRenderer(), {
      type: 'input_transcript',
      itemId: 'i',
      delta: 'x',
      startMs: 10.6,
      endMs: 9.2,
      done: false,
    });
    expect([event.start_ms, event.end_ms]).toEqual([11, 11]);
    const early = json(new LiveRenderer(), { type: 'speech_started', itemId: 'i', startMs: -3 });
    expect(early.event).toEqual({ type: 'speech_started', item_id: 'i', start_ms: 0 });
  });

  it('renders output audio as base64 with timing and no event_id', () => {
    const pcm = Buffer.from([1, 2, 3, 4]);
    expect(json(new LiveRenderer(), { type: 'output_audio', itemId: 'o1', pcm, startMs: 80, endMs: 160 })).toEqual({
      type: 'session.output_audio.delta',
      item_id: 'o1',
      delta: pcm.toString('base64'),
      start_ms: 80,
      end_ms: 160,
    });
  });

  it('sends output audio as raw binary frames once a binary session started', () => {
    const renderer = new LiveRenderer();
    const binary = { ...SESSION, config: { ...SESSION.config, outputEncoding: 'binary' as const } };
    expect(json(renderer, { type: 'started', session: binary })).toMatchObject({
      session: { audio: { output: { encoding: 'binary' } } },
    });
    const pcm = Buffer.from([9, 9]);
    expect(renderer.render({ type: 'output_audio', itemId: 'o', pcm, startMs: 0, endMs: 1 })).toBe(pcm);
  });

  it('renders turn events as session.turn.event', () => {
    const renderer = new LiveRenderer();
    expect(json(renderer, { type: 'speech_started', itemId: 'i', startMs: 5 })).toEqual({
      type: 'session.turn.event',
      event_id: 'evt_1',
      event: { type: 'speech_started', item_id: 'i', start_ms: 5 },
    });
    expect(json(renderer, { type: 'speech_stopped', itemId: 'i', endMs: 9 }).event).toEqual({
      type: 'speech_stopped',
      item_id: 'i',
      end_ms: 9,
    });
    expect(json(renderer, { type: 'response_started', itemId: 'o' }).event).toEqual({
      type: 'response_started',
      item_id: 'o',
    });
    expect(json(renderer, { type: 'response_done', itemId: 'o', interrupted: true }).event).toEqual({
      type: 'response_done',
      item_id: 'o',
      interrupted: true,
    });
  });

  it('renders input and output warnings under their own event names', () => {
    const renderer = new LiveRenderer();
    expect(json(renderer, { type: 'warning', code: 'audio_while_muted', message: 'm' })).toEqual({
      type: 'session.input_audio.warning',
      event_id: 'evt_1',
      code: 'audio_while_muted',
      message: 'm',
    });
    expect(json(renderer, { type: 'warning', code: 'output_audio_dropped', message: 'o' }).type).toBe(
      'session.output_audio.warning',
    );
  });

  it('renders usage with seconds and frames', () => {
    expect(json(new LiveRenderer(), { type: 'usage', usage: { frames: 62, seconds: 4.96 } })).toEqual({
      type: 'session.usage.updated',
      event_id: 'evt_1',
      usage: { frames: 62, seconds: 4.96 },
    });
  });

  it('renders errors with the client event id at both levels, and server errors as server_error', () => {
    const renderer = new LiveRenderer();
    expect(
      json(renderer, {
        type: 'error',
        error: {
          code: 'invalid_voice',
          message: 'no',
          param: 'session.audio.output.voice',
          origin: 'client',
          clientEventId: 'e',
        },
      }),
    ).toEqual({
      type: 'error',
      event_id: 'evt_1',
      client_event_id: 'e',
      error: {
        type: 'invalid_request_error',
        code: 'invalid_voice',
        message: 'no',
        param: 'session.audio.output.voice',
        client_event_id: 'e',
      },
    });
    expect(
      json(renderer, { type: 'error', error: { code: 'engine_error', message: 'x', param: null, origin: 'server' } }),
    ).toEqual({
      type: 'error',
      event_id: 'evt_2',
      error: { type: 'server_error', code: 'engine_error', message: 'x', param: null },
    });
  });

  it('renders session.closed with reason, session, usage, detail and stats', () => {
    const closed: ServerEvent = {
      type: 'closed',
      reason: 'expired',
      session: SESSION,
      usage: { frames: 12, seconds: 0.96 },
      detail: 'max_duration_reached',
      stats: STATS,
      clientEventId: 'bye',
    };
    expect(json(new LiveRenderer(), closed)).toEqual({
      type: 'session.closed',
      event_id: 'evt_1',
      client_event_id: 'bye',
      reason: 'expired',
      session: RESOURCE,
      usage: { frames: 12, seconds: 0.96 },
      detail: 'max_duration_reached',
      stats: {
        duration_ms: 1000,
        input_frames: 12,
        muted_frames: 1,
        dropped_input_ms: 0,
        output_frames: 3,
        output_dropped_frames: 0,
        turns: 1,
        responses: 1,
        interruptions: 0,
        warnings: 2,
        errors: 1,
      },
    });
  });

  it('shows a transcription session without an output voice, and hides commit/clear acks', () => {
    const renderer = new LiveRenderer();
    const asr = {
      ...SESSION,
      config: { ...SESSION.config, type: 'transcription' as const, model: 'vendor-asr-streaming', voice: null },
    };
    expect(json(renderer, { type: 'started', session: asr }).session).toMatchObject({
      type: 'transcription',
      audio: { format: { type: 'audio/pcm', rate: 24000 } },
    });
    expect((json(renderer, { type: 'updated', session: asr }).session as { audio: object }).audio).not.toHaveProperty(
      'output',
    );
    expect(renderer.render({ type: 'input_committed' })).toBeNull();
    expect(renderer.render({ type: 'input_cleared', clientEventId: 'x' })).toBeNull();
  });
});

import type { ServerEvent } from '../../../session-core/model/session.events';
import type { SessionDescriptor } from '../../../session-core/model/session.types';
import { finalTranscript, transcriptDelta } from '../../../session-core/testing/transcript-events';
import { RealtimeRenderer } from './realtime.render';

const SESSION: SessionDescriptor = {
  id: 'sess_abc',
  config: {
    type: 'transcription',
    model: 'vendor-asr-streaming',
    voice: null,
    language: 'auto',
    turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
    outputEncoding: 'base64',
  },
  startedAtMs: 1_000_000,
  expiresAtMs: 1_120_000,
};

const STATS = {
  durationMs: 0,
  inputFrames: 0,
  mutedFrames: 0,
  droppedInputMs: 0,
  outputFrames: 0,
  outputDroppedFrames: 0,
  turns: 0,
  responses: 0,
  interruptions: 0,
  warnings: 0,
  errors: 0,
};

/** Renders events and returns every frame as parsed JSON. */
function renderAll(renderer: RealtimeRenderer, events: ServerEvent[]): Record<string, any>[] {
  return events.flatMap((event) => {
    const out = renderer.render(event);
    if (out === null) return [];
    return (Array.isArray(out) ? out : [out]).map((frame) => JSON.parse(String(frame)));
  });
}

const delta = (itemId: string, text: string, startMs = 0) => transcriptDelta(itemId, text, startMs, startMs + 400);
const final = (itemId: string, transcript: string, startMs = 0, endMs = 1200) =>
  finalTranscript(itemId, transcript, startMs, endMs);
const closed = (detail: string): ServerEvent => ({
  type: 'closed',
  reason: detail === 'client_requested' ? 'close_requested' : 'expired',
  session: SESSION,
  usage: { frames: 0, seconds: 0 },
  detail,
  stats: STATS,
});

describe('RealtimeRenderer', () => {
  it('renders started as session.created and updated as session.updated with the effective configuration', () => {
    const renderer = new RealtimeRenderer('sess_abc');
    const manual = { ...SESSION, config: { ...SESSION.config, language: 'de', turnDetection: null } };
    const [created, updated] = renderAll(renderer, [
      { type: 'started', session: SESSION },
      { type: 'updated', session: manual, clientEventId: 'u1' },
    ]);
    expect(created).toEqual({
      type: 'session.created',
      event_id: 'event_1',
      session: {
        id: 'sess_abc',
        object: 'realtime.transcription_session',
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            noise_reduction: null,
            transcription: { model: 'vendor-asr-streaming' },
            turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
          },
        },
        expires_at: 1120,
        include: [],
      },
    });
    expect(updated).toEqual({
      type: 'session.updated',
      event_id: 'event_2',
      session: expect.objectContaining({
        audio: {
          input: expect.objectContaining({
            transcription: { model: 'vendor-asr-streaming', language: 'de' },
            turn_detection: null,
          }),
        },
      }),
    });
  });

  it('commits at the end of speech, after speech_stopped, and chains items', () => {
    const frames = renderAll(new RealtimeRenderer('sess_abc'), [
      { type: 'speech_started', itemId: 'e1', startMs: 0 },
      delta('e1', 'one'),
      delta('e1', ''),
      { type: 'speech_stopped', itemId: 'e1', endMs: 1200 },
      final('e1', 'one'),
      { type: 'speech_started', itemId: 'e2', startMs: 2000 },
      { type: 'speech_stopped', itemId: 'e2', endMs: 2400 },
    ]);
    expect(frames.map((f) => [f.type, f.item_id, f.previous_item_id])).toEqual([
      ['input_audio_buffer.speech_started', 'item_abc_1', undefined],
      ['conversation.item.input_audio_transcription.delta', 'item_abc_1', undefined],
      ['input_audio_buffer.speech_stopped', 'item_abc_1', undefined],
      ['input_audio_buffer.committed', 'item_abc_1', null],
      ['conversation.item.input_audio_transcription.completed', 'item_abc_1', undefined],
      ['input_audio_buffer.speech_started', 'item_abc_2', undefined],
      ['input_audio_buffer.speech_stopped', 'item_abc_2', undefined],
      ['input_audio_buffer.committed', 'item_abc_2', 'item_abc_1'],
    ]);
    expect(frames[4]).toEqual({
      type: 'conversation.item.input_audio_transcription.completed',
      event_id: 'event_5',
      item_id: 'item_abc_1',
      content_index: 0,
      transcript: 'one',
      usage: { type: 'duration', seconds: 1.2 },
    });
  });

  it('gives a manual commit over unnamed audio the id of the utterance the engine then makes', () => {
    const frames = renderAll(new RealtimeRenderer('sess_abc'), [
      delta('e1', 'one'),
      { type: 'input_committed', clientEventId: 'c1' },
      final('e1', 'one'),
      { type: 'input_committed' },
      final('e2', '', 1200, 2000),
    ]);
    expect(frames.map((f) => [f.type, f.item_id])).toEqual([
      ['conversation.item.input_audio_transcription.delta', 'item_abc_1'],
      ['input_audio_buffer.committed', 'item_abc_1'],
      ['conversation.item.input_audio_transcription.completed', 'item_abc_1'],
      ['input_audio_buffer.committed', 'item_abc_2'],
      ['conversation.item.input_audio_transcription.completed', 'item_abc_2'],
    ]);
    expect(frames[3].previous_item_id).toBe('item_abc_1');
  });

  it('commits an utterance the client did not (ended by the close) right before its transcript', () => {
    const frames = renderAll(new RealtimeRenderer('sess_abc'), [delta('e1', 'one'), final('e1', 'one')]);
    expect(frames.map((f) => f.type)).toEqual([
      'conversation.item.input_audio_transcription.delta',
      'input_audio_buffer.committed',
      'conversation.item.input_audio_transcription.completed',
    ]);
  });

  it('forgets the open utterance on clear', () => {
    const renderer = new RealtimeRenderer('sess_abc');
    const frames = renderAll(renderer, [delta('e1', 'one'), { type: 'input_cleared' }, delta('e2', 'two')]);
    expect(frames.map((f) => [f.type, f.item_id])).toEqual([
      ['conversation.item.input_audio_transcription.delta', 'item_abc_1'],
      ['input_audio_buffer.cleared', undefined],
      ['conversation.item.input_audio_transcription.delta', 'item_abc_2'],
    ]);
  });

  it('renders errors in the Realtime shape, with OpenAI codes and the client event_id', () => {
    const [client, server] = renderAll(new RealtimeRenderer('sess_abc'), [
      {
        type: 'error',
        error: {
          code: 'input_audio_buffer_empty',
          message: 'empty',
          param: null,
          origin: 'client',
          clientEventId: 'c1',
        },
      },
      { type: 'error', error: { code: 'engine_error', message: 'x', param: null, origin: 'server' } },
    ]);
    expect(client).toEqual({
      type: 'error',
      event_id: 'event_1',
      error: {
        type: 'invalid_request_error',
        code: 'input_audio_buffer_commit_empty',
        message: 'empty',
        param: null,
        event_id: 'c1',
      },
    });
    expect(server.error).toMatchObject({ type: 'server_error', code: 'engine_error', event_id: null });
  });

  it('fails committed items without a transcript at the end, and explains an end the client did not ask for', () => {
    const renderer = new RealtimeRenderer('sess_abc');
    renderAll(renderer, [delta('e1', 'one'), { type: 'input_committed' }, { type: 'input_committed' }]);
    const frames = renderAll(renderer, [closed('max_duration_reached')]);
    expect(frames.map((f) => [f.type, f.item_id ?? f.error.code])).toEqual([
      ['conversation.item.input_audio_transcription.failed', 'item_abc_1'],
      ['conversation.item.input_audio_transcription.failed', 'item_abc_2'],
      ['error', 'session_expired'],
    ]);
    expect(frames[0].error).toMatchObject({ type: 'server_error' });
    expect(frames[2].error.message).toBe('Your session hit the maximum duration of 120 seconds.');
    expect(renderAll(new RealtimeRenderer('sess_abc'), [closed('session_deleted')])[0].error.code).toBe(
      'session_deleted',
    );
    expect(renderAll(new RealtimeRenderer('sess_abc'), [closed('key_revoked')])[0].error).toMatchObject({
      type: 'invalid_request_error',
      code: 'key_revoked',
    });
    expect(renderAll(new RealtimeRenderer('sess_abc'), [closed('server_shutdown')])[0].error).toMatchObject({
      type: 'server_error',
      code: 'server_shutdown',
    });
    expect(new RealtimeRenderer('sess_abc').render(closed('client_requested'))).toBeNull();
  });

  it('shows nothing for what Realtime has no event for', () => {
    const renderer = new RealtimeRenderer('sess_abc');
    expect(renderer.render({ type: 'usage', usage: { frames: 1, seconds: 0.08 } })).toBeNull();
    expect(renderer.render({ type: 'warning', code: 'input_dropped', message: 'x' })).toBeNull();
    expect(renderer.render({ type: 'muted' })).toBeNull();
  });
});

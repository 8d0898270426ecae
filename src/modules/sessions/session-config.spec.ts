import { AppConfig } from '../../config/app-config';
import { ModelCatalog } from '../models/model-catalog';
import { RequestedSessionConfig, resolveSessionConfig } from './session-config';

describe('resolveSessionConfig', () => {
  const models = new ModelCatalog(new AppConfig({}));
  const resolve = (requested?: RequestedSessionConfig, transcriptionOnly = false) =>
    resolveSessionConfig(requested, models, { transcriptionOnly });
  const refusal = (requested: RequestedSessionConfig, transcriptionOnly = false) => {
    try {
      resolve(requested, transcriptionOnly);
    } catch (error) {
      return error as { code: string; param: string; status: number };
    }
    throw new Error('expected a refusal');
  };
  const vad = { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 };
  const endOfTurn = { eot_threshold: 0.7, eager_eot_threshold: 0.4, eot_timeout_ms: 5000 };

  it('takes G.711 in and out for the Realtime socket only, stored at 8 kHz', () => {
    const realtime = (requested: RequestedSessionConfig) =>
      resolveSessionConfig(requested, models, { realtimeFormats: true });
    const g711 = { input: { format: { type: 'audio/pcmu' } }, output: { format: { type: 'audio/pcma', rate: 8000 } } };
    const { audio } = realtime({ type: 'live', audio: g711 });
    expect(audio.input.format).toEqual({ type: 'audio/pcmu', rate: 8000 });
    expect(audio.output).toEqual({ voice: 'aria', encoding: 'base64', format: { type: 'audio/pcma', rate: 8000 } });
    const at16k = () => realtime({ audio: { input: { format: { type: 'audio/pcmu', rate: 16000 } } } });
    expect(at16k).toThrow(expect.objectContaining({ param: 'session.audio.input.format.rate' }));
    const opus = () => realtime({ audio: { input: { format: { type: 'audio/opus' } } } });
    expect(opus).toThrow(expect.objectContaining({ param: 'session.audio.input.format.type' }));
    // The live protocol plays pcm16 only.
    expect(() => resolve({ type: 'live', audio: { output: { format: { type: 'audio/pcmu' } } } } as never)).toThrow(
      expect.objectContaining({ param: 'session.audio.output.format' }),
    );
  });

  it('makes a live vendor-voicechat session with every default when nothing is asked', () => {
    expect(resolve(undefined)).toEqual({
      type: 'live',
      model: 'vendor-voicechat',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          transcription: { language: 'auto' },
          turn_detection: { ...vad, end_of_turn: endOfTurn },
          noise_reduction: null,
        },
        output: { voice: 'aria', encoding: 'base64' },
      },
    });
  });

  it('defaults a transcription session to the streaming model, without audio output', () => {
    const resolved = resolve({ type: 'transcription' });
    expect(resolved).toMatchObject({ type: 'transcription', model: 'vendor-asr-streaming' });
    expect(resolved.audio.output).toBeNull();
    expect(resolved.audio.input.transcription).toEqual({ language: 'auto', model: 'vendor-asr-streaming' });
  });

  it('infers the type from the model', () => {
    expect(resolve({ model: 'vendor-asr-streaming' }).type).toBe('transcription');
  });

  it('keeps what was asked', () => {
    const resolved = resolve({
      type: 'live',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: null },
          transcription: { language: 'en-US', prompt: 'names: Ada' },
          turn_detection: { threshold: 0.7, silence_duration_ms: 800, create_response: true },
          noise_reduction: { type: 'near_field' },
        },
        output: { voice: 'aria', encoding: 'binary' },
      },
    });
    expect(resolved.audio).toEqual({
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        transcription: { language: 'en-US', prompt: 'names: Ada' },
        turn_detection: { ...vad, threshold: 0.7, silence_duration_ms: 800, end_of_turn: endOfTurn },
        noise_reduction: null,
      },
      output: { voice: 'aria', encoding: 'binary' },
    });
  });

  it('turns detection off with null', () => {
    expect(resolve({ audio: { input: { turn_detection: null } } }).audio.input.turn_detection).toBeNull();
  });

  it('makes the realtime path a transcription session whatever the defaults', () => {
    expect(resolve(undefined, true)).toMatchObject({ type: 'transcription', model: 'vendor-asr-streaming' });
    expect(resolve({ type: 'transcription', model: 'vendor-asr-streaming' }, true).type).toBe('transcription');
  });

  it.each<[string, RequestedSessionConfig, boolean, string]>([
    ['another model on the realtime path', { model: 'vendor-voicechat' }, true, 'session.model'],
    ['a live type on the realtime path', { type: 'live' }, true, 'session.type'],
    ['an unknown model', { model: 'gpt-4o' }, false, 'session.model'],
    ['a type and model that disagree', { type: 'live', model: 'vendor-asr-streaming' }, false, 'session.model'],
    [
      'a transcription model other than the session model',
      { type: 'transcription', audio: { input: { transcription: { model: 'whisper-1' } } } },
      false,
      'session.audio.input.transcription.model',
    ],
    [
      'a transcription model on the realtime path',
      { audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } },
      true,
      'session.audio.input.transcription.model',
    ],
    [
      'another audio format',
      { audio: { input: { format: { type: 'audio/pcmu' } } } },
      false,
      'session.audio.input.format.type',
    ],
    ['another rate', { audio: { input: { format: { rate: 16000 } } } }, false, 'session.audio.input.format.rate'],
    [
      'semantic VAD',
      { audio: { input: { turn_detection: { type: 'semantic_vad' } } } },
      false,
      'session.audio.input.turn_detection.type',
    ],
    ['another voice', { audio: { output: { voice: 'alloy' } } }, false, 'session.audio.output.voice'],
    [
      'audio output on a transcription session',
      { type: 'transcription', audio: { output: {} } },
      false,
      'session.audio.output',
    ],
  ])('refuses %s with 400 invalid_parameter naming the param', (_name, requested, transcriptionOnly, param) => {
    expect(refusal(requested, transcriptionOnly)).toMatchObject({ code: 'invalid_parameter', status: 400, param });
  });

  it('takes end-of-turn thresholds for live sessions, or null for fixed silence, and refuses them elsewhere', () => {
    const asked = (end_of_turn: unknown, type?: 'transcription') =>
      resolve({ ...(type ? { type } : {}), audio: { input: { turn_detection: { end_of_turn } } } } as never).audio.input
        .turn_detection;
    expect(asked({ eot_threshold: 0.9, eager_eot_threshold: null })).toMatchObject({
      end_of_turn: { eot_threshold: 0.9, eager_eot_threshold: null, eot_timeout_ms: 5000 },
    });
    expect(asked(null)).toMatchObject({ end_of_turn: null });
    expect(() => asked({ eot_threshold: 0.6, eager_eot_threshold: 0.8 })).toThrow(/eager_eot_threshold/);
    expect(() => asked({}, 'transcription')).toThrow(/live sessions only/);
  });
});

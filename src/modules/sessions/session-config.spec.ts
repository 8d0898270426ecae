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

  it('makes a live vendor-voicechat session with every default when nothing is asked', () => {
    expect(resolve(undefined)).toEqual({
      type: 'live',
      model: 'vendor-voicechat',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          transcription: { language: 'auto' },
          turn_detection: vad,
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
        turn_detection: { ...vad, threshold: 0.7, silence_duration_ms: 800 },
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
});

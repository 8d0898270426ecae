import { AppConfig } from '../../config/app-config';
import { ConfigError } from '../../config/environment';
import { createRegistry } from '../engines.module';

const MODELS = { 'vendor-asr-streaming': 'asr', 'vendor-voicechat': 'local' };
const remote = { kind: 'remote', protocol: 'vllm-realtime', workers: ['ws://asr:8000/v1/realtime'], model: 'voxtral' };

function start(document: unknown, env: Record<string, string> = {}) {
  return createRegistry(new AppConfig({ ENGINES_JSON: JSON.stringify(document), ...env }));
}

function failure(document: unknown, env: Record<string, string> = {}): string {
  try {
    start(document, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('engines configuration', () => {
  it('serves every model with one SPEECH_ENGINE engine when nothing is configured', async () => {
    const registry = createRegistry(new AppConfig({ SPEECH_ENGINE: 'scripted', ENGINE_MAX_STREAMS: '3' }));
    expect(registry.engineFor('vendor-voicechat')).toBe(registry.engineFor('vendor-asr-streaming'));
    expect(registry.engineFor('vendor-voicechat').name).toBe('scripted');
    expect(registry.capacityFor('vendor-voicechat')).toEqual({ inUse: 0, max: 3 });
    expect(registry.languagesFor('vendor-asr-streaming')).toEqual(['en']);
    await registry.shutdown();
  });

  it('gives each model the engine the document names', async () => {
    const registry = start({ engines: { asr: remote, local: { kind: 'scripted', maxStreams: 5 } }, models: MODELS });
    expect(registry.engineFor('vendor-asr-streaming').name).toBe('remote');
    expect(registry.capacityFor('vendor-voicechat')).toEqual({ inUse: 0, max: 5 });
    await registry.shutdown();
  });

  it.each([
    [
      'an unknown engine kind',
      { engines: { asr: { ...remote, kind: 'whisper' }, local: { kind: 'scripted' } }, models: MODELS },
      /ENGINES_JSON engines\.asr\.kind: unknown engine kind "whisper" \(known: embedded, scripted, remote, cascade\)/,
    ],
    [
      'a bad worker URL',
      { engines: { asr: { ...remote, workers: ['http://asr:8000'] }, local: { kind: 'scripted' } }, models: MODELS },
      /ENGINES_JSON engines\.asr\.workers\[0\]: must be a ws:\/\/ or wss:\/\/ URL/,
    ],
    [
      'a model without engine',
      { engines: { asr: remote }, models: { 'vendor-asr-streaming': 'asr' } },
      /ENGINES_JSON models\.vendor-voicechat: model without engine/,
    ],
    [
      'a model naming a missing engine',
      { engines: { asr: remote }, models: { ...MODELS } },
      /ENGINES_JSON models\.vendor-voicechat: names no engine of "engines" \(got "local"\)/,
    ],
    [
      'an unknown model',
      { engines: { asr: remote, local: { kind: 'scripted' } }, models: { ...MODELS, 'gpt-4o': 'asr' } },
      /ENGINES_JSON models\.gpt-4o: unknown model/,
    ],
    [
      'a misspelt setting',
      { engines: { asr: { ...remote, maxStreamPerWorker: 4 }, local: { kind: 'scripted' } }, models: MODELS },
      /ENGINES_JSON engines\.asr\.maxStreamPerWorker: unknown setting/,
    ],
    [
      'an API key written into the document',
      { engines: { asr: { ...remote, apiKey: 'sk-123' }, local: { kind: 'scripted' } }, models: MODELS },
      /ENGINES_JSON engines\.asr\.apiKey: must be \{"env": "VARIABLE"\} or \{"file": "\/path"\}/,
    ],
    [
      'a files upstream that is not http(s)',
      {
        engines: { asr: { ...remote, files: { url: 'ws://whisper/v1', model: 'w' } }, local: { kind: 'scripted' } },
        models: MODELS,
      },
      /ENGINES_JSON engines\.asr\.files\.url: must be an http\(s\) URL/,
    ],
    [
      "a files upstream's key written into the document",
      {
        engines: {
          asr: { ...remote, files: { url: 'http://whisper/v1', model: 'w', apiKey: 'sk-1' } },
          local: { kind: 'scripted' },
        },
        models: MODELS,
      },
      /ENGINES_JSON engines\.asr\.files\.apiKey: must be \{"env": "VARIABLE"\}/,
    ],
  ])('stops the start on %s, naming the setting', (_case, document, message) => {
    expect(failure(document)).toMatch(message);
  });

  it('gives a remote engine with "files" a file upstream, and the embedded engine a batch process', async () => {
    const files = { url: 'http://whisper:8000/v1', model: 'whisper-large-v3', apiKey: { env: 'WHISPER_KEY' } };
    const document = {
      engines: { asr: { ...remote, files }, local: { kind: 'embedded', batchStreams: 3 } },
      models: MODELS,
    };
    expect(() => start(document)).toThrow(
      /engine asr: its files\.apiKey \(\{"env":"WHISPER_KEY"\}\) is empty or unset/,
    );
    const registry = start(document, { WHISPER_KEY: 'sk-w' });
    expect(registry.engineFor('vendor-asr-streaming').files?.capacity()).toEqual({ inUse: 0, max: 4 });
    expect(registry.engineFor('vendor-voicechat').batch?.capacity()).toEqual({ inUse: 0, max: 3 });
    await registry.shutdown();
    const without = start({ engines: { asr: remote, local: { kind: 'embedded', batchStreams: 0 } }, models: MODELS });
    expect(without.engineFor('vendor-asr-streaming').files).toBeUndefined();
    expect(without.engineFor('vendor-voicechat').batch).toBeUndefined();
    await without.shutdown();
  });

  it('takes SPEECH_ENGINE from the registered kinds, the one list of them', () => {
    expect(() => createRegistry(new AppConfig({ SPEECH_ENGINE: 'whisper' }))).toThrow(
      /SPEECH_ENGINE="whisper": SPEECH_ENGINE must be one of the following values: embedded, scripted, remote, cascade/,
    );
    // A registered kind that needs settings is not refused as unknown: its own settings are asked for.
    expect(() => createRegistry(new AppConfig({ SPEECH_ENGINE: 'remote' }))).toThrow(/SPEECH_ENGINE engines\.remote\./);
  });

  it('stops the start on JSON that does not parse, and on an unreadable ENGINES_FILE', () => {
    expect(() => createRegistry(new AppConfig({ ENGINES_JSON: '{"engines": ' }))).toThrow(
      /ENGINES_JSON: not valid JSON/,
    );
    expect(() => new AppConfig({ ENGINES_FILE: '/nonexistent/engines.json' })).toThrow(
      /ENGINES_FILE=\/nonexistent\/engines\.json: cannot be read/,
    );
  });

  it('stops the start when a named credential is unset, without printing any credential', () => {
    const document = {
      engines: { asr: { ...remote, apiKey: { env: 'ASR_KEY' } }, local: { kind: 'scripted' } },
      models: MODELS,
    };
    expect(() => start(document)).toThrow(/engine asr: its apiKey \(\{"env":"ASR_KEY"\}\) is empty or unset/);
    expect(() => start(document, { ASR_KEY: 'sk-live-123' })).not.toThrow();
  });
});

import { cascadeKind } from './cascade.kind';
import {
  cascadeEngineOptions,
  CascadeConfigError,
  DEFAULT_SYSTEM_PROMPT,
  parseCascadeSettings,
} from './cascade.options';

const minimal = () => ({
  chat: { url: 'http://llama:8080/v1', model: 'llama-3.2-3b' },
  speech: { url: 'http://kokoro:8880/v1/', model: 'kokoro', voice: 'af_heart' },
});

/** Shaped like the registry's ConfigSection: errors name the setting and the path. */
const section = (values: Record<string, unknown>) => ({
  values,
  error: (key: string | null, message: string) =>
    new Error(`ENGINES_JSON engines.voicechat${key === null ? '' : `.${key}`}: ${message}`),
});

describe('cascade settings', () => {
  it('fill defaults and append the endpoint paths to base URLs', () => {
    expect(parseCascadeSettings(minimal())).toEqual({
      chat: {
        url: 'http://llama:8080/v1/chat/completions',
        model: 'llama-3.2-3b',
        systemPrompt: DEFAULT_SYSTEM_PROMPT,
        maxTokens: 256,
        temperature: 0.7,
        timeoutMs: 15_000,
        apiKey: null,
      },
      speech: {
        url: 'http://kokoro:8880/v1/audio/speech',
        model: 'kokoro',
        voice: 'af_heart',
        speed: 1,
        timeoutMs: 10_000,
        apiKey: null,
      },
      historyMessages: 20,
      outputLeadMs: 160,
      maxSentenceChars: 240,
    });
    const full = { ...minimal(), chat: { ...minimal().chat, url: 'https://x/v1/chat/completions' } };
    expect(parseCascadeSettings(full).chat.url).toBe('https://x/v1/chat/completions');
  });

  it.each([
    [{ chat: undefined }, 'chat', 'must be an object'],
    [{ chat: { url: 'ftp://x', model: 'm' } }, 'chat.url', 'must be an http(s) URL'],
    [{ chat: { url: 'not a url', model: 'm' } }, 'chat.url', 'must be an http(s) URL'],
    [{ chat: { url: 'http://u:p@x/v1', model: 'm' } }, 'chat.url', 'must not hold credentials (use apiKey)'],
    [{ chat: { url: 'http://x/v1', model: '' } }, 'chat.model', 'must be a non-empty string'],
    [{ chat: { url: 'http://x', model: 'm', temperature: 3 } }, 'chat.temperature', 'must be a number from 0 to 2'],
    [{ chat: { url: 'http://x', model: 'm', maxTokens: 1.5 } }, 'chat.maxTokens', 'must be an integer from 1 to 32768'],
    [{ chat: { url: 'http://x', model: 'm', max_tokens: 5 } }, 'chat.max_tokens', 'unknown setting'],
    [{ speech: { url: 'http://x', model: 'k' } }, 'speech.voice', 'must be a non-empty string'],
    [{ chat: { url: 'http://x', model: 'm', apiKey: 'sk-literal' } }, 'chat.apiKey', 'must be {"env": "VARIABLE"}'],
    [{ historyMessages: 0 }, 'historyMessages', 'must be a number from 1 to 1000'],
  ])('refuse %j naming the setting', (override, key, problem) => {
    let error: unknown;
    try {
      parseCascadeSettings({ ...minimal(), ...override });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CascadeConfigError);
    expect((error as CascadeConfigError).key).toBe(key);
    expect((error as CascadeConfigError).problem).toContain(problem);
    expect((error as Error).message).not.toContain('sk-literal');
  });

  it('read credentials for every request, and refuse at start one that does not resolve', () => {
    const settings = parseCascadeSettings({
      ...minimal(),
      chat: { ...minimal().chat, apiKey: { file: '/run/secrets/chat' } },
      speech: { ...minimal().speech, apiKey: { env: 'TTS_KEY' } },
    });
    let version = 1;
    const options = cascadeEngineOptions(settings, (ref) => ('file' in ref ? `sk-file-${version}` : 'sk-env'));
    expect(options.chat.apiKey()).toBe('sk-file-1');
    version = 2;
    expect(options.chat.apiKey()).toBe('sk-file-2');
    expect(options.speech.apiKey()).toBe('sk-env');
    expect(() => cascadeEngineOptions(settings, () => undefined)).toThrow(
      'chat.apiKey: {"file":"/run/secrets/chat"} is empty or unset',
    );
  });
});

describe('cascadeKind', () => {
  it('parses its section with the listener and languages it declares', () => {
    const settings = cascadeKind.parse(section({ ...minimal(), listener: 'asr', languages: ['EN', 'fr'] }));
    expect(settings).toMatchObject({ listener: 'asr', languages: ['en', 'fr'], chat: { model: 'llama-3.2-3b' } });
    expect(cascadeKind.languages(settings)).toEqual(['en', 'fr']);
  });

  it('reports problems through the section, naming the setting', () => {
    expect(() => cascadeKind.parse(section(minimal()))).toThrow(
      'ENGINES_JSON engines.voicechat.listener: must name the engine',
    );
    expect(() =>
      cascadeKind.parse(section({ ...minimal(), listener: 'asr', speech: { url: 'ws://x', model: 'k', voice: 'v' } })),
    ).toThrow('ENGINES_JSON engines.voicechat.speech.url: must be an http(s) URL');
    expect(() => cascadeKind.parse(section({ ...minimal(), listener: 'asr', extra: 1 }))).toThrow(
      'ENGINES_JSON engines.voicechat.extra: unknown setting',
    );
  });
});

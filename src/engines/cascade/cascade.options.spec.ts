import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SYSTEM_PROMPT, resolveCascadeOptions } from './cascade.options';

const minimal = () => ({
  chat: { url: 'http://llama:8080/v1', model: 'llama-3.2-3b' },
  speech: { url: 'http://kokoro:8880/v1/', model: 'kokoro', voice: 'af_heart' },
});

describe('resolveCascadeOptions', () => {
  it('fills defaults and appends the endpoint paths to base URLs', () => {
    expect(resolveCascadeOptions(minimal())).toEqual({
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
    expect(resolveCascadeOptions(full).chat.url).toBe('https://x/v1/chat/completions');
  });

  it.each([
    [{ chat: undefined }, 'engines.voicechat.chat must be an object'],
    [{ chat: { url: 'ftp://x', model: 'm' } }, 'engines.voicechat.chat.url must be an http(s) URL'],
    [{ chat: { url: 'not a url', model: 'm' } }, 'engines.voicechat.chat.url must be an http(s) URL'],
    [{ chat: { url: 'http://u:p@x/v1', model: 'm' } }, 'engines.voicechat.chat.url must not hold credentials'],
    [{ chat: { url: 'http://x/v1', model: '' } }, 'engines.voicechat.chat.model must be a non-empty string'],
    [
      { chat: { url: 'http://x', model: 'm', temperature: 3 } },
      'engines.voicechat.chat.temperature must be a number from 0 to 2',
    ],
    [{ chat: { url: 'http://x', model: 'm', maxTokens: 1.5 } }, 'engines.voicechat.chat.maxTokens must be an integer'],
    [{ speech: { url: 'http://x', model: 'k' } }, 'engines.voicechat.speech.voice must be a non-empty string'],
    [
      { chat: { url: 'http://x', model: 'm', apiKey: 'a', apiKeyFile: '/k' } },
      'engines.voicechat.chat.apiKey and engines.voicechat.chat.apiKeyFile are exclusive',
    ],
    [
      { chat: { url: 'http://x', model: 'm', apiKeyFile: '/nonexistent/key' } },
      'engines.voicechat.chat.apiKeyFile cannot be read (ENOENT)',
    ],
  ])('refuses %j naming the setting', (override, message) => {
    expect(() => resolveCascadeOptions({ ...minimal(), ...override }, 'engines.voicechat')).toThrow(message);
  });

  it('reads keys from files (trimmed) or takes them as values, and never repeats them in an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cascade-key-'));
    writeFileSync(join(dir, 'chat'), 'sk-from-file\n');
    writeFileSync(join(dir, 'empty'), '\n');
    const options = resolveCascadeOptions({
      chat: { ...minimal().chat, apiKeyFile: join(dir, 'chat') },
      speech: { ...minimal().speech, apiKey: 'sk-value' },
    });
    expect(options.chat.apiKey).toBe('sk-from-file');
    expect(options.speech.apiKey).toBe('sk-value');
    expect(() =>
      resolveCascadeOptions({ ...minimal(), chat: { ...minimal().chat, apiKeyFile: join(dir, 'empty') } }),
    ).toThrow('cascade.chat.apiKeyFile is empty');
    expect(() =>
      resolveCascadeOptions({ ...minimal(), chat: { ...minimal().chat, apiKey: 'sk-x', temperature: 'hot' } }),
    ).toThrow(/^(?!.*sk-x).*temperature/);
  });
});

import { AppConfig } from '../../config/app-config';
import { MODEL_IDS } from '../registry/served-models';
import { createRegistry } from '../engines.module';
import { ENGINE_KINDS } from '../registry/engine-kinds';
import { readEnginesDocument } from '../registry/engines-document';

/** The cascade kind through the engines registry: what an operator's mistakes look like at start. */
const document = (voicechat: Record<string, unknown>) => ({
  engines: {
    listen: { kind: 'scripted' },
    voicechat: {
      kind: 'cascade',
      listener: 'listen',
      chat: { url: 'http://llama:8080/v1', model: 'm', apiKey: { env: 'CHAT_API_KEY' } },
      speech: { url: 'http://kokoro:8880/v1', model: 'kokoro', voice: 'af_heart' },
      ...voicechat,
    },
  },
  models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
});

describe('the cascade kind in the engines registry', () => {
  it('refuses a bad setting at start, naming it', () => {
    const bad = document({ speech: { url: 'ws://kokoro', model: 'kokoro', voice: 'af_heart' } });
    expect(() => readEnginesDocument('ENGINES_JSON', bad, ENGINE_KINDS, MODEL_IDS)).toThrow(
      'ENGINES_JSON engines.voicechat.speech.url: must be an http(s) URL',
    );
  });

  it('creates the cascade over its listener, and refuses an unknown listener or an unset key', () => {
    const config = (doc: unknown, env: Record<string, string> = {}) =>
      new AppConfig({ ENGINES_JSON: JSON.stringify(doc), ...env });
    const registry = createRegistry(config(document({}), { CHAT_API_KEY: 'sk-x' }));
    expect(registry.engineFor('vendor-voicechat').name).toBe('cascade');
    expect(registry.languagesFor('vendor-voicechat')).toEqual(['en']);
    expect(() => createRegistry(config(document({ listener: 'nope' }), { CHAT_API_KEY: 'sk-x' }))).toThrow(
      'no engine named "nope"',
    );
    expect(() => createRegistry(config(document({})))).toThrow(/voicechat: chat\.apiKey .*empty or unset/);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from './app-config';
import { sha256Hex } from '../platform/ids';
import { ConfigError } from './environment';

describe('AppConfig', () => {
  it('has working defaults with no environment at all', () => {
    const c = new AppConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: null,
      tls: null,
      maxSessionSeconds: 120,
      concurrentSessionsLimit: 6,
      // The defaults agree: a project's concurrency is one instance's fair share of its 8 streams.
      engineMaxStreams: 8,
      projectStreamsPerInstance: 6,
      sessionIdleSeconds: 30,
      startingCreditMicros: 10_000_000,
      priceMicrosPerMinute: { voicechat: 60_000, asr: 6_000 },
      speechEngine: 'embedded',
    });
  });

  it.each([
    ['1', 1],
    ['2', 1],
    ['4', 3],
    ['100', 75],
  ])('leaves others a quarter of ENGINE_MAX_STREAMS=%s (a project holds %i) unless told', (streams, share) => {
    expect(new AppConfig({ ENGINE_MAX_STREAMS: streams }).projectStreamsPerInstance).toBe(share);
    expect(
      new AppConfig({ ENGINE_MAX_STREAMS: streams, PROJECT_STREAMS_PER_INSTANCE: streams }).projectStreamsPerInstance,
    ).toBe(Number(streams));
  });

  it('parses typed values and trims the public URL', () => {
    const c = new AppConfig({
      PORT: '9000',
      PUBLIC_URL: 'https://speech.example.com/',
      DATABASE_URL: 'postgres://u@h/db',
    });
    expect(c.port).toBe(9000);
    expect(c.publicUrl).toBe('https://speech.example.com');
    expect(c.databaseUrl).toBe('postgres://u@h/db');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ TLS_CERT_FILE: '/c.pem' }, 'TLS_KEY_FILE'],
    [{ PRICE_ASR_USD_PER_MINUTE: '-1' }, 'PRICE_ASR_USD_PER_MINUTE'],
    [{ MAX_SESSION_SECONDS: '0' }, 'MAX_SESSION_SECONDS'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => new AppConfig(env)).toThrow(ConfigError);
    expect(() => new AppConfig(env)).toThrow(new RegExp(name));
  });

  describe('starting key', () => {
    const key = `wk_${'a1B2'.repeat(10)}`;

    it('is kept only as its hash and shown prefix, from the variable or from a file', () => {
      const fromEnv = new AppConfig({ STARTING_API_KEY: key });
      expect(fromEnv.startingApiKey).toEqual({ hash: sha256Hex(key), prefix: key.slice(0, 10) });
      expect(JSON.stringify(fromEnv)).not.toContain(key);
      const file = join(mkdtempSync(join(tmpdir(), 'continuum-key-')), 'api-key');
      writeFileSync(file, `${key}\n`);
      expect(new AppConfig({ STARTING_API_KEY_FILE: file }).startingApiKey).toEqual(fromEnv.startingApiKey);
      expect(new AppConfig({}).startingApiKey).toBeNull();
    });

    it.each([
      [{ STARTING_API_KEY: 'wk_short' }, /STARTING_API_KEY \(value not shown\)/],
      [{ STARTING_API_KEY: `ek_${'a'.repeat(40)}` }, /STARTING_API_KEY \(value not shown\)/],
      [{ STARTING_API_KEY: key, STARTING_API_KEY_FILE: '/k' }, /set one, not both/],
      [{ STARTING_API_KEY_FILE: '/nonexistent/api-key' }, /STARTING_API_KEY_FILE="\/nonexistent\/api-key": ENOENT/],
    ])('refuses %j without echoing a key', (env, message) => {
      expect(() => new AppConfig(env)).toThrow(message);
      try {
        new AppConfig(env);
      } catch (error) {
        expect(String(error)).not.toMatch(/[we]k_[A-Za-z0-9]{5}/);
      }
    });
  });

  it('never echoes a DATABASE_URL, which may hold a password', () => {
    expect(() => new AppConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })).toThrow(
      /DATABASE_URL \(value not shown\)/,
    );
    expect(() => new AppConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' })).not.toThrow(/hunter2/);
  });

  it('reads the socket keep-alive settings', () => {
    expect(new AppConfig({})).toMatchObject({ socketPingIntervalMs: 20_000, socketPongTimeoutMs: 20_000 });
    expect(new AppConfig({ SOCKET_PING_INTERVAL_SECONDS: '0', SOCKET_PONG_TIMEOUT_SECONDS: '3' })).toMatchObject({
      socketPingIntervalMs: 0,
      socketPongTimeoutMs: 3000,
    });
  });

  it('reads REALTIME_MODEL_ALIASES as alias=model pairs, empty for none, and refuses a malformed one', () => {
    expect(new AppConfig({}).realtimeModelAliases.get('gpt-realtime')).toBe('vendor-voicechat');
    expect(new AppConfig({ REALTIME_MODEL_ALIASES: '' }).realtimeModelAliases.size).toBe(0);
    expect([
      ...new AppConfig({ REALTIME_MODEL_ALIASES: ' my-agent = vendor-voicechat ' }).realtimeModelAliases,
    ]).toEqual([['my-agent', 'vendor-voicechat']]);
    for (const bad of ['gpt-realtime', 'a=b=c', 'a=vendor-voicechat,a=vendor-voicechat', 'a b=vendor-voicechat']) {
      expect(() => new AppConfig({ REALTIME_MODEL_ALIASES: bad })).toThrow(/REALTIME_MODEL_ALIASES/);
    }
  });
});

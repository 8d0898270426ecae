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
    expect(c.instanceUrl).toBeNull();
    expect(new AppConfig({ INSTANCE_URL: 'http://10.0.3.7:8080/' }).instanceUrl).toBe('http://10.0.3.7:8080');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ TLS_CERT_FILE: '/c.pem' }, 'TLS_KEY_FILE'],
    [{ PRICE_ASR_USD_PER_MINUTE: '-1' }, 'PRICE_ASR_USD_PER_MINUTE'],
    [{ MAX_SESSION_SECONDS: '0' }, 'MAX_SESSION_SECONDS'],
    [{ INSTANCE_URL: '10.0.3.7:8080' }, 'INSTANCE_URL'],
    [{ INSTANCE_URL: 'http://10.0.3.7:8080/v1' }, 'INSTANCE_URL'],
    [{ INSTANCE_URL: 'http://u:p@10.0.3.7:8080' }, 'INSTANCE_URL'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => new AppConfig(env)).toThrow(ConfigError);
    expect(() => new AppConfig(env)).toThrow(new RegExp(name));
  });

  describe('secrets from files (<NAME>_FILE)', () => {
    const dir = () => mkdtempSync(join(tmpdir(), 'continuum-secret-'));
    const url = 'postgres://continuum:s3cret-Pw@db:5432/continuum';

    it.each([
      ['DATABASE_URL', url, (c: AppConfig) => c.databaseUrl],
      ['ADMIN_API_KEY_SHA256', sha256Hex('wadm_x'), (c: AppConfig) => c.adminApiKeySha256],
    ] as const)('reads %s from its file, trimmed, as from the variable', (name, value, read) => {
      const file = join(dir(), 'secret');
      writeFileSync(file, `${value}\n`);
      expect(read(new AppConfig({ [`${name}_FILE`]: file }))).toBe(value);
      expect(read(new AppConfig({ [name]: value }))).toBe(value);
    });

    it('validates the value read from a file without showing it', () => {
      const file = join(dir(), 'database-url');
      writeFileSync(file, 'mysql://root:s3cret-Pw@db/x');
      expect(() => new AppConfig({ DATABASE_URL_FILE: file })).toThrow(/DATABASE_URL \(value not shown\)/);
      expect(() => new AppConfig({ DATABASE_URL_FILE: file })).not.toThrow(/s3cret/);
    });

    it.each([
      [
        { DATABASE_URL: url, DATABASE_URL_FILE: '/run/secrets/x' },
        /DATABASE_URL and DATABASE_URL_FILE: set one, not both/,
      ],
      [{ DATABASE_URL_FILE: '/nonexistent/url' }, /DATABASE_URL_FILE="\/nonexistent\/url": ENOENT/],
      [{ ADMIN_API_KEY_SHA256_FILE: '/nonexistent/sha' }, /ADMIN_API_KEY_SHA256_FILE="\/nonexistent\/sha": ENOENT/],
    ])('refuses %j', (env, message) => {
      expect(() => new AppConfig(env)).toThrow(message);
    });

    it('refuses an empty file', () => {
      const file = join(dir(), 'empty');
      writeFileSync(file, '\n');
      expect(() => new AppConfig({ DATABASE_URL_FILE: file })).toThrow(/DATABASE_URL_FILE=.*: the file is empty/);
    });
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => new AppConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '20', HTTP_REQUEST_TIMEOUT_SECONDS: '10' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_SECONDS: must not exceed HTTP_REQUEST_TIMEOUT_SECONDS/,
    );
    expect(new AppConfig({}).http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
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

  it("reads a conversation's context budget and retained bound, and refuses values out of range", () => {
    expect(new AppConfig({}).conversationLimits).toEqual({ contextTokens: 32_000, retainedChars: 1_000_000 });
    const set = new AppConfig({ CONVERSATION_CONTEXT_TOKENS: '8000', CONVERSATION_RETAINED_CHARS: '200000' });
    expect(set.conversationLimits).toEqual({ contextTokens: 8000, retainedChars: 200_000 });
    expect(() => new AppConfig({ CONVERSATION_CONTEXT_TOKENS: '10' })).toThrow(/CONVERSATION_CONTEXT_TOKENS/);
    expect(() => new AppConfig({ CONVERSATION_RETAINED_CHARS: 'lots' })).toThrow(/CONVERSATION_RETAINED_CHARS/);
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

import { AppConfig } from './app-config';
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
      concurrentSessionsLimit: 10,
      startingCreditMicros: 10_000_000,
      priceMicrosPerMinute: { voicechat: 60_000, asr: 6_000 },
      speechEngine: 'embedded',
    });
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
});

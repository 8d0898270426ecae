import { resolve } from 'node:path';
import { parseEnvironment } from './environment';
import { usdToMicros } from '../common/money';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** The service's configuration, validated once at start and injected wherever it is read. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string | null;
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly databasePoolSize: number;
  readonly tls: TlsFiles | null;
  readonly logLevel: string;
  readonly maxSessionSeconds: number;
  readonly concurrentSessionsLimit: number;
  readonly rateLimitPerMinute: number;
  /** Failed authentications per minute per client address (bucket capacity and refill). */
  readonly authFailuresPerMinute: number;
  readonly priceMicrosPerMinute: { voicechat: number; asr: number };
  readonly startingCreditMicros: number;
  readonly speechEngine: 'embedded' | 'scripted';
  readonly engineMaxStreams: number;
  readonly region: string;
  readonly pool: string;
  readonly shutdownGraceSeconds: number;
  readonly sessionHeartbeatTimeoutSeconds: number;
  readonly sessionReaperIntervalSeconds: number;
  readonly sessionExpirySweepSeconds: number;

  constructor(env: Record<string, string | undefined>) {
    const e = parseEnvironment(env);
    this.port = e.PORT;
    this.host = e.HOST;
    this.publicUrl = e.PUBLIC_URL ? e.PUBLIC_URL.replace(/\/+$/, '') : null;
    this.databaseUrl = e.DATABASE_URL ?? null;
    this.dataDir = resolve(e.DATA_DIR);
    this.databasePoolSize = e.DATABASE_POOL_SIZE;
    this.tls = e.TLS_CERT_FILE && e.TLS_KEY_FILE ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE } : null;
    this.logLevel = e.LOG_LEVEL;
    this.maxSessionSeconds = e.MAX_SESSION_SECONDS;
    this.concurrentSessionsLimit = e.CONCURRENT_SESSIONS_LIMIT;
    this.rateLimitPerMinute = e.RATE_LIMIT_REQUESTS_PER_MINUTE;
    this.authFailuresPerMinute = e.AUTH_FAILURES_PER_MINUTE;
    this.priceMicrosPerMinute = {
      voicechat: usdToMicros(e.PRICE_VOICECHAT_USD_PER_MINUTE),
      asr: usdToMicros(e.PRICE_ASR_USD_PER_MINUTE),
    };
    this.startingCreditMicros = usdToMicros(e.STARTING_CREDIT_USD);
    this.speechEngine = e.SPEECH_ENGINE;
    this.engineMaxStreams = e.ENGINE_MAX_STREAMS;
    this.region = e.REGION;
    this.pool = e.POOL;
    this.shutdownGraceSeconds = e.SHUTDOWN_GRACE_SECONDS;
    this.sessionHeartbeatTimeoutSeconds = e.SESSION_HEARTBEAT_TIMEOUT_SECONDS;
    this.sessionReaperIntervalSeconds = e.SESSION_REAPER_INTERVAL_SECONDS;
    this.sessionExpirySweepSeconds = e.SESSION_EXPIRY_SWEEP_SECONDS;
  }

  /** Reads the process environment; the only place in the service that does. */
  static fromProcessEnv(overrides: Record<string, string | undefined> = {}): AppConfig {
    return new AppConfig({ ...process.env, ...overrides });
  }
}

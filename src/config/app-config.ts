import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, Environment, parseEnvironment } from './environment';
import { sha256Hex } from '../platform/ids';
import { registerSecretValue } from '../platform/logging/redact';
import { usdToMicros } from '../platform/money';
import { parseTrustProxy, TrustProxy } from './trusted-proxies';

/** The engines document as given (parsed and validated by the engines module at start). */
export interface EnginesSource {
  /** The setting it came from, named in every error about it: `ENGINES_FILE=/etc/…` or `ENGINES_JSON`. */
  readonly setting: string;
  readonly text: string;
}

/** The configured starting key, kept only as what is stored: its hash and its shown prefix. */
export interface StartingApiKey {
  hash: string;
  prefix: string;
}

const STARTING_KEY = /^wk_[A-Za-z0-9]{32,200}$/;

/** Batch transcription's limits (Environment's TRANSCRIPTION_* variables). */
export interface TranscriptionLimits {
  /** Hosts a URL body may name (`*`: any public host); empty: URL bodies are refused. */
  urlHosts: readonly string[];
  urlAllowPrivate: boolean;
  urlTimeoutMs: number;
  maxAudioSeconds: number;
  queueSize: number;
  queueTimeoutMs: number;
  /** Engine streams batch work uses at once on the instance. */
  maxStreams: number;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** The service's configuration, validated once at start and injected wherever it is read. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  /** Which peers may name the client in X-Forwarded-For (Fastify's trustProxy; the sockets use it too). */
  readonly trustProxy: TrustProxy;
  /** null: /metrics is served on the public port. */
  readonly metricsPort: number | null;
  readonly publicUrl: string | null;
  /** Where the other instances reach this one (a call's relayed sideband); null: they do not. */
  readonly instanceUrl: string | null;
  /** How long a client may take to send a request's headers, and the whole request (server-limits.ts). */
  readonly http: { headersTimeoutMs: number; requestTimeoutMs: number };
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
  /** The configured key that signs credentials; null: the one kept in the database. */
  readonly credentialSigningKey: Buffer | null;
  readonly priceMicrosPerMinute: { voicechat: number; asr: number };
  /** The conversation model's text tokens, micro-USD per million. */
  readonly voicechatTokenPriceMicros: { input: number; output: number };
  readonly startingCreditMicros: number;
  /** A registered engine kind's name (src/engines/registry/engine-kinds.ts checks it, not config). */
  readonly speechEngine: string;
  readonly engineMaxStreams: number;
  /** Sockets one project may hold on this instance: its fair share of the engine streams. */
  readonly projectStreamsPerInstance: number;
  readonly sessionIdleSeconds: number;
  readonly socketControlBurst: number;
  readonly socketControlPerSecond: number;
  /** What one conversation response may send upstream, and what a conversation session keeps. */
  readonly conversationLimits: { readonly contextTokens: number; readonly retainedChars: number };
  /** A conversation's `response.create` allowance: at once, then per minute. */
  readonly conversationResponses: { burst: number; perMinute: number };
  /** null: every model is served by one SPEECH_ENGINE engine of ENGINE_MAX_STREAMS streams. */
  readonly engines: EnginesSource | null;
  readonly region: string;
  readonly pool: string;
  readonly shutdownGraceSeconds: number;
  readonly sessionHeartbeatTimeoutSeconds: number;
  readonly sessionReaperIntervalSeconds: number;
  readonly sessionExpirySweepSeconds: number;
  /** SHA-256 (hex) of the admin token; null: no admin API. */
  readonly adminApiKeySha256: string | null;
  readonly startingApiKey: StartingApiKey | null;
  readonly socketPingIntervalMs: number;
  readonly sessionSignals: 'auto' | 'heartbeat';
  readonly socketPongTimeoutMs: number;
  /** `/v1/realtime` model aliases: alias → model id (checked against the served models by the gateway). */
  readonly realtimeModelAliases: ReadonlyMap<string, string>;
  readonly transcriptions: TranscriptionLimits;
  /** WebRTC calls: their one UDP port (0: calls off) and the addresses their answers announce (empty: the interfaces'). */
  readonly webrtc: { readonly udpPort: number; readonly announcedAddresses: readonly string[] };

  constructor(env: Record<string, string | undefined>) {
    const e = parseEnvironment(env);
    this.port = e.PORT;
    this.host = e.HOST;
    this.trustProxy = parseTrustProxy(e.TRUST_PROXY);
    this.metricsPort = e.METRICS_PORT ?? null;
    if (e.HTTP_HEADERS_TIMEOUT_SECONDS > e.HTTP_REQUEST_TIMEOUT_SECONDS) {
      throw new ConfigError(
        'Invalid configuration:\n  HTTP_HEADERS_TIMEOUT_SECONDS: must not exceed HTTP_REQUEST_TIMEOUT_SECONDS (the headers are part of the request)',
      );
    }
    this.http = {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
    };
    this.publicUrl = e.PUBLIC_URL ? e.PUBLIC_URL.replace(/\/+$/, '') : null;
    this.instanceUrl = e.INSTANCE_URL ? e.INSTANCE_URL.replace(/\/+$/, '') : null;
    this.databaseUrl = e.DATABASE_URL ?? null;
    registerSecretValue(databasePassword(this.databaseUrl));
    this.dataDir = resolve(e.DATA_DIR);
    this.databasePoolSize = e.DATABASE_POOL_SIZE;
    this.tls = e.TLS_CERT_FILE && e.TLS_KEY_FILE ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE } : null;
    this.logLevel = e.LOG_LEVEL;
    this.maxSessionSeconds = e.MAX_SESSION_SECONDS;
    this.concurrentSessionsLimit = e.CONCURRENT_SESSIONS_LIMIT;
    this.rateLimitPerMinute = e.RATE_LIMIT_REQUESTS_PER_MINUTE;
    this.authFailuresPerMinute = e.AUTH_FAILURES_PER_MINUTE;
    this.credentialSigningKey = e.CREDENTIAL_SIGNING_KEY ? Buffer.from(e.CREDENTIAL_SIGNING_KEY, 'utf8') : null;
    registerSecretValue(e.CREDENTIAL_SIGNING_KEY ?? null);
    this.priceMicrosPerMinute = {
      voicechat: usdToMicros(e.PRICE_VOICECHAT_USD_PER_MINUTE),
      asr: usdToMicros(e.PRICE_ASR_USD_PER_MINUTE),
    };
    this.voicechatTokenPriceMicros = {
      input: usdToMicros(e.PRICE_VOICECHAT_USD_PER_MILLION_INPUT_TOKENS),
      output: usdToMicros(e.PRICE_VOICECHAT_USD_PER_MILLION_OUTPUT_TOKENS),
    };
    this.startingCreditMicros = usdToMicros(e.STARTING_CREDIT_USD);
    this.speechEngine = e.SPEECH_ENGINE;
    this.engineMaxStreams = e.ENGINE_MAX_STREAMS;
    this.projectStreamsPerInstance =
      e.PROJECT_STREAMS_PER_INSTANCE ?? Math.max(1, e.ENGINE_MAX_STREAMS - Math.ceil(e.ENGINE_MAX_STREAMS / 4));
    this.sessionIdleSeconds = e.SESSION_IDLE_SECONDS;
    this.socketControlBurst = e.SOCKET_CONTROL_BURST;
    this.socketControlPerSecond = e.SOCKET_CONTROL_PER_SECOND;
    this.conversationLimits = {
      contextTokens: e.CONVERSATION_CONTEXT_TOKENS,
      retainedChars: e.CONVERSATION_RETAINED_CHARS,
    };
    this.conversationResponses = {
      burst: e.CONVERSATION_RESPONSE_BURST,
      perMinute: e.CONVERSATION_RESPONSES_PER_MINUTE,
    };
    this.engines = enginesSource(e.ENGINES_FILE, e.ENGINES_JSON);
    // Upstream credentials are named by the engines document ({"env": "NAME"}); only those are read.
    this.secretEnv = (name) => env[name];
    this.region = e.REGION;
    this.pool = e.POOL;
    this.shutdownGraceSeconds = e.SHUTDOWN_GRACE_SECONDS;
    this.sessionHeartbeatTimeoutSeconds = e.SESSION_HEARTBEAT_TIMEOUT_SECONDS;
    this.sessionReaperIntervalSeconds = e.SESSION_REAPER_INTERVAL_SECONDS;
    this.sessionExpirySweepSeconds = e.SESSION_EXPIRY_SWEEP_SECONDS;
    this.adminApiKeySha256 = e.ADMIN_API_KEY_SHA256 ?? null;
    this.startingApiKey = startingApiKeyOf(e);
    this.socketPingIntervalMs = e.SOCKET_PING_INTERVAL_SECONDS * 1000;
    this.sessionSignals = e.SESSION_SIGNALS;
    this.socketPongTimeoutMs = e.SOCKET_PONG_TIMEOUT_SECONDS * 1000;
    this.realtimeModelAliases = modelAliasesOf(e.REALTIME_MODEL_ALIASES);
    this.transcriptions = {
      urlHosts: e.TRANSCRIPTION_URL_HOSTS.split(',')
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ''),
      urlAllowPrivate: e.TRANSCRIPTION_URL_ALLOW_PRIVATE === 'true',
      urlTimeoutMs: e.TRANSCRIPTION_URL_TIMEOUT_SECONDS * 1000,
      maxAudioSeconds: e.TRANSCRIPTION_MAX_AUDIO_SECONDS,
      queueSize: e.TRANSCRIPTION_QUEUE_SIZE,
      queueTimeoutMs: e.TRANSCRIPTION_QUEUE_TIMEOUT_SECONDS * 1000,
      maxStreams: e.TRANSCRIPTION_MAX_STREAMS,
    };
    this.webrtc = {
      udpPort: e.WEBRTC_UDP_PORT,
      announcedAddresses: announcedAddressesOf(e.WEBRTC_ANNOUNCED_ADDRESSES),
    };
  }

  private readonly secretEnv: (name: string) => string | undefined;

  /** An upstream credential from an environment variable or a file (a mounted Kubernetes Secret). */
  credential(ref: { env: string } | { file: string }): string | undefined {
    const value =
      'env' in ref ? this.secretEnv(ref.env)?.trim() || undefined : readFileSync(ref.file, 'utf8').trim() || undefined;
    registerSecretValue(value); // no log line may carry it, in any encoding
    return value;
  }

  /** Reads the process environment; the only place in the service that does. */
  static fromProcessEnv(overrides: Record<string, string | undefined> = {}): AppConfig {
    return new AppConfig({ ...process.env, ...overrides });
  }
}

function enginesSource(file: string | undefined, json: string | undefined): EnginesSource | null {
  if (file !== undefined) {
    const setting = `ENGINES_FILE=${file}`;
    try {
      return { setting, text: readFileSync(resolve(file), 'utf8') };
    } catch (error) {
      throw new ConfigError(`Invalid configuration:\n  ${setting}: cannot be read (${(error as Error).message})`);
    }
  }
  return json === undefined ? null : { setting: 'ENGINES_JSON', text: json };
}

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

function modelAliasesOf(text: string): ReadonlyMap<string, string> {
  const aliases = new Map<string, string>();
  for (const pair of text.split(',').map((part) => part.trim())) {
    if (pair === '') continue;
    const [alias, model, ...rest] = pair.split('=').map((part) => part.trim());
    const problem =
      model === undefined || rest.length > 0 || !ALIAS.test(alias)
        ? 'each entry must be alias=model'
        : !ALIAS.test(model)
          ? 'the model is not a model id'
          : aliases.has(alias)
            ? `${alias} is named twice`
            : null;
    if (problem !== null) {
      throw new ConfigError(`Invalid configuration:\n  REALTIME_MODEL_ALIASES: ${JSON.stringify(pair)}: ${problem}`);
    }
    aliases.set(alias, model);
  }
  return aliases;
}

function startingApiKeyOf(e: Environment): StartingApiKey | null {
  if (e.STARTING_API_KEY !== undefined && e.STARTING_API_KEY_FILE !== undefined) {
    throw new ConfigError('Invalid configuration:\n  STARTING_API_KEY and STARTING_API_KEY_FILE: set one, not both');
  }
  let key = e.STARTING_API_KEY;
  if (e.STARTING_API_KEY_FILE !== undefined) {
    try {
      key = readFileSync(e.STARTING_API_KEY_FILE, 'utf8').trim();
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(
        `Invalid configuration:\n  STARTING_API_KEY_FILE=${JSON.stringify(e.STARTING_API_KEY_FILE)}: ${reason}`,
      );
    }
  }
  if (key === undefined) return null;
  if (!STARTING_KEY.test(key)) {
    throw new ConfigError(
      'Invalid configuration:\n  STARTING_API_KEY (value not shown): must be wk_ followed by 32 to 200 letters or digits',
    );
  }
  return { hash: sha256Hex(key), prefix: key.slice(0, 10) };
}

/** The password in a postgres:// URL, as the server gets it (decoded), or null. */
function databasePassword(url: string | null): string | null {
  if (!url) return null;
  try {
    return decodeURIComponent(new URL(url).password) || null;
  } catch {
    return null;
  }
}

/** IPv4 or IPv6 literals: a candidate carries an address, and a hostname would need resolving by every client. */
function announcedAddressesOf(value: string | undefined): string[] {
  const addresses = (value ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  for (const address of addresses) {
    if (isIP(address) === 0) {
      throw new ConfigError(
        `Invalid configuration:\n  WEBRTC_ANNOUNCED_ADDRESSES: ${JSON.stringify(address)} is not an IP address`,
      );
    }
  }
  return addresses;
}

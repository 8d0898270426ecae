import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
  ValidateIf,
} from 'class-validator';

const USD = /^\d{1,9}(\.\d{1,6})?$/;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const trimmed = Transform(({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value,
);

/**
 * Every environment variable the service reads, with its default. This class is the only place that
 * knows variable names; the rest of the code reads the typed AppConfig built from it.
 */
export class Environment {
  @IsInt() @Min(0) @Max(65535) PORT: number = 8080;
  @IsString() @MinLength(1) HOST = '0.0.0.0';
  /**
   * Proxies whose X-Forwarded-For names the client (a hop count, or addresses and CIDRs; see
   * trusted-proxies.ts). Unset: trust none, the client is the socket's peer.
   */
  @trimmed @IsOptional() @IsString() TRUST_PROXY?: string;
  /** Seconds a client has to send a request's headers (src/platform/http/server-limits.ts says why 10). */
  @IsInt() @Min(1) @Max(300) HTTP_HEADERS_TIMEOUT_SECONDS: number = 10;
  /** Seconds a client has to send a whole request, body included (30 by default; not sockets, not streams). */
  @IsInt() @Min(1) @Max(300) HTTP_REQUEST_TIMEOUT_SECONDS: number = 30;
  /** When set, /metrics is served on this port only (plain HTTP, on HOST), not on the public one. */
  @trimmed @IsOptional() @IsInt() @Min(1) @Max(65535) METRICS_PORT?: number;
  /** Public base URL (e.g. https://speech.example.com); live_url is built from it. */
  @trimmed
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  PUBLIC_URL?: string;
  /**
   * Where the other instances reach this one (e.g. http://10.0.3.7:8080; on Kubernetes the pod's IP
   * from the downward API): a call's sideband opened on another instance is relayed here. Unset: a
   * sideband must reach the instance that holds the call (404 elsewhere).
   */
  @trimmed
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/?#@]+\/?$/, {
    message: 'INSTANCE_URL must be an http(s) URL with no path, query or credentials (e.g. http://10.0.3.7:8080)',
  })
  INSTANCE_URL?: string;
  /** postgres://… of an external database; without it an embedded PostgreSQL runs in DATA_DIR. */
  @trimmed
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must start with postgres://' })
  DATABASE_URL?: string;
  @IsString() @MinLength(1) DATA_DIR = './data';
  @IsInt() @Min(1) @Max(100) DATABASE_POOL_SIZE: number = 10;
  @trimmed
  @ValidateIf((e: Environment) => e.TLS_KEY_FILE !== undefined)
  @IsString({ message: 'TLS_CERT_FILE is required with TLS_KEY_FILE' })
  TLS_CERT_FILE?: string;
  @trimmed
  @ValidateIf((e: Environment) => e.TLS_CERT_FILE !== undefined)
  @IsString({ message: 'TLS_KEY_FILE is required with TLS_CERT_FILE' })
  TLS_KEY_FILE?: string;
  /**
   * SHA-256 (hex) of the admin token that opens /v1/admin (`npm run cli -- admin token` makes one).
   * Unset: the admin API does not exist (404), the console CLI is the only way to manage projects.
   */
  @trimmed
  @IsOptional()
  @Matches(/^[0-9a-f]{64}$/, { message: 'ADMIN_API_KEY_SHA256 must be 64 lowercase hex digits (a SHA-256)' })
  ADMIN_API_KEY_SHA256?: string;
  @IsIn(LOG_LEVELS) LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @IsInt() @Min(1) @Max(3600) MAX_SESSION_SECONDS: number = 120;
  /** Live and pending sessions of one project across every instance; 6 matches one instance's share of 8 streams. */
  @IsInt() @Min(1) @Max(100_000) CONCURRENT_SESSIONS_LIMIT: number = 6;
  @IsInt() @Min(1) @Max(1_000_000) RATE_LIMIT_REQUESTS_PER_MINUTE: number = 600;
  @IsInt() @Min(1) @Max(1_000_000) AUTH_FAILURES_PER_MINUTE: number = 30;
  /**
   * HMAC key (32 to 512 characters) that signs new API keys and client secrets, so a throttled address's
   * forged credential is refused in memory (credential-signer.ts). Unset: one random key is kept in the
   * database and shared by every instance.
   */
  @trimmed
  @IsOptional()
  @IsString()
  @Matches(/^.{32,512}$/s, { message: 'CREDENTIAL_SIGNING_KEY must be 32 to 512 characters' })
  CREDENTIAL_SIGNING_KEY?: string;
  @Matches(USD, { message: 'PRICE_VOICECHAT_USD_PER_MINUTE must be a decimal USD amount' })
  PRICE_VOICECHAT_USD_PER_MINUTE = '0.060000';
  @Matches(USD, { message: 'PRICE_ASR_USD_PER_MINUTE must be a decimal USD amount' })
  PRICE_ASR_USD_PER_MINUTE = '0.006000';
  /** A conversation's text work on vendor-voicechat: per million input (context) and output tokens. */
  @Matches(USD, { message: 'PRICE_VOICECHAT_USD_PER_MILLION_INPUT_TOKENS must be a decimal USD amount' })
  PRICE_VOICECHAT_USD_PER_MILLION_INPUT_TOKENS = '1.000000';
  @Matches(USD, { message: 'PRICE_VOICECHAT_USD_PER_MILLION_OUTPUT_TOKENS must be a decimal USD amount' })
  PRICE_VOICECHAT_USD_PER_MILLION_OUTPUT_TOKENS = '4.000000';
  @Matches(USD, { message: 'STARTING_CREDIT_USD must be a decimal USD amount' })
  STARTING_CREDIT_USD = '10.00';

  /** One engine of this kind serves every model; the kinds are the registered ones, checked with the engines document. */
  @IsString() @MinLength(1) SPEECH_ENGINE = 'embedded';
  @IsInt() @Min(1) @Max(10_000) ENGINE_MAX_STREAMS: number = 8;
  /**
   * The sockets one project may hold on one instance (its fair share of the engine streams). Unset:
   * ENGINE_MAX_STREAMS less a quarter (6 of 8), so one project never holds every stream; set it to
   * ENGINE_MAX_STREAMS when one project owns the deployment.
   */
  @IsOptional() @IsInt() @Min(1) @Max(10_000) PROJECT_STREAMS_PER_INSTANCE?: number;
  /** A started session that appends no whole frame of audio for this long ends `expired` (`idle_timeout`); 0: never. */
  @IsInt() @Min(0) @Max(3600) SESSION_IDLE_SECONDS: number = 30;
  /** Control messages (all but audio) one socket may send at once, and per second after that. */
  @IsInt() @Min(1) @Max(100_000) SOCKET_CONTROL_BURST: number = 200;
  @IsInt() @Min(1) @Max(100_000) SOCKET_CONTROL_PER_SECOND: number = 50;
  /**
   * Estimated tokens of context one conversation response sends the chat model (instructions, tools,
   * then the newest messages that fit); docs/configuration.md says how they are counted.
   */
  @IsInt() @Min(1000) @Max(2_000_000) CONVERSATION_CONTEXT_TOKENS: number = 32_000;
  /** Characters a conversation session's items may hold together; a client's item past it is refused. */
  @IsInt() @Min(10_000) @Max(100_000_000) CONVERSATION_RETAINED_CHARS: number = 1_000_000;
  /** Responses a conversation's client may ask for (`response.create`) at once, and per minute after that. */
  @IsInt() @Min(1) @Max(10_000) CONVERSATION_RESPONSE_BURST: number = 10;
  @IsInt() @Min(1) @Max(100_000) CONVERSATION_RESPONSES_PER_MINUTE: number = 30;
  /** JSON file naming the engine of each model (see README "Serving real models"); overrides SPEECH_ENGINE. */
  @trimmed @IsOptional() @IsString() ENGINES_FILE?: string;
  /** The same document inline (e.g. from a ConfigMap value); ENGINES_FILE wins when both are set. */
  @trimmed @IsOptional() @IsString() ENGINES_JSON?: string;
  @IsString() @MinLength(1) REGION = 'local';
  @IsString() @MinLength(1) POOL = 'default';
  /**
   * Seconds a stopping instance lets live sessions run before closing them. 7 by default: docker stop
   * kills after 10 s, which leaves 3 s to record the closes and exit (README, "Stopping and draining").
   */
  @IsInt() @Min(0) @Max(600) SHUTDOWN_GRACE_SECONDS: number = 7;
  /**
   * An active session whose heartbeat is older than this is closed as connection_lost by the reaper.
   * Its holder beats every 5 s: keep this several beats long.
   */
  @IsInt() @Min(2) @Max(3600) SESSION_HEARTBEAT_TIMEOUT_SECONDS: number = 30;
  /** How often each instance looks for sessions orphaned by a dead instance; 0 turns the reaper off. */
  @IsInt() @Min(0) @Max(3600) SESSION_REAPER_INTERVAL_SECONDS: number = 10;
  /**
   * How often each instance marks lapsed pending sessions (secret never used) `expired`. Limits and views
   * already treat a lapsed secret as expired; the sweep keeps the stored status (exports, filters) true.
   */
  @IsInt() @Min(1) @Max(3600) SESSION_EXPIRY_SWEEP_SECONDS: number = 10;

  /**
   * The first project's API key, provisioned at start (stored as its SHA-256): for installs without a
   * console, e.g. from a Kubernetes Secret. Its format is checked in AppConfig, whose message never
   * shows the value.
   */
  @trimmed @IsOptional() @IsString() STARTING_API_KEY?: string;
  /** A file holding STARTING_API_KEY (a mounted Secret); one or the other. */
  @trimmed @IsOptional() @IsString() STARTING_API_KEY_FILE?: string;
  /**
   * How a DELETE reaches a socket held by another instance: `auto` uses PostgreSQL LISTEN/NOTIFY when
   * a probe notification comes back (not through a pooler in transaction mode, not on the embedded
   * database), `heartbeat` only the holder's 5 s heartbeat (no listening connection).
   */
  @IsIn(['auto', 'heartbeat']) SESSION_SIGNALS: 'auto' | 'heartbeat' = 'auto';
  /** Seconds between the server's pings on every socket (0: no pings). */
  @IsInt() @Min(0) @Max(3600) SOCKET_PING_INTERVAL_SECONDS: number = 20;
  /** A socket that has not answered a ping for this long is closed as connection_lost. */
  @IsInt() @Min(1) @Max(3600) SOCKET_PONG_TIMEOUT_SECONDS: number = 20;
  /**
   * Batch transcription (`POST /v1/audio/transcriptions`, `POST /v1/listen`): hosts a Deepgram `{url}` body
   * may name, comma-separated (`*`: any public host); empty: URL bodies are refused.
   */
  @IsString() TRANSCRIPTION_URL_HOSTS = '';
  /** Lets a URL body reach private addresses (never link-local ones): for hosts on the operator's own network. */
  @IsIn(['true', 'false']) TRANSCRIPTION_URL_ALLOW_PRIVATE: 'true' | 'false' = 'false';
  /** Seconds a URL body's download may take. */
  @IsInt() @Min(1) @Max(600) TRANSCRIPTION_URL_TIMEOUT_SECONDS: number = 30;
  /** The longest audio one request may carry, in seconds (a 25 MB upload of low-rate Opus decodes to hours). */
  @IsInt() @Min(1) @Max(86_400) TRANSCRIPTION_MAX_AUDIO_SECONDS: number = 7200;
  /** Batch requests that may wait for engine streams at once on an instance; beyond it, 503 with retry_after_ms. */
  @IsInt() @Min(0) @Max(10_000) TRANSCRIPTION_QUEUE_SIZE: number = 16;
  /**
   * Engine streams batch work uses at once on an instance (all requests together). Keep it at most half
   * of libuv's thread pool (UV_THREADPOOL_SIZE, 4 by default), where the embedded engine decodes: a live
   * session's decodes otherwise wait behind batch ones.
   */
  @IsInt() @Min(1) @Max(10_000) TRANSCRIPTION_MAX_STREAMS: number = 2;
  /** How long a batch request waits for its first engine stream before it is refused 503. */
  @IsInt() @Min(1) @Max(3600) TRANSCRIPTION_QUEUE_TIMEOUT_SECONDS: number = 30;
  /**
   * The one UDP port every WebRTC call of this instance uses (ICE, DTLS, SRTP, SCTP multiplexed on it),
   * so a pod needs one hostPort or NodePort; 0 turns POST /v1/realtime/calls off.
   */
  @IsInt() @Min(0) @Max(65535) WEBRTC_UDP_PORT: number = 3479;
  /**
   * The addresses a call's answer announces as host candidates on WEBRTC_UDP_PORT, comma-separated
   * (the node's or load balancer's public address); empty: the interfaces' own addresses.
   */
  @trimmed @IsOptional() @IsString() WEBRTC_ANNOUNCED_ADDRESSES?: string;
  /**
   * Other names for this service's models on `/v1/realtime` (`?model=` and session.update's
   * `model`), so an agent written for OpenAI connects unchanged: comma-separated `alias=model`
   * pairs; empty: none. Checked in AppConfig (each target must be a served model).
   */
  @IsString() REALTIME_MODEL_ALIASES =
    'gpt-realtime=vendor-voicechat,gpt-realtime-2.1=vendor-voicechat,gpt-realtime-mini=vendor-voicechat';
}

export class ConfigError extends Error {}

/** Variables without a default (absent from `new Environment()`'s keys). */
const OPTIONAL = [
  'PUBLIC_URL',
  'INSTANCE_URL',
  'WEBRTC_ANNOUNCED_ADDRESSES',
  'DATABASE_URL',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'STARTING_API_KEY',
  'STARTING_API_KEY_FILE',
  'ADMIN_API_KEY_SHA256',
  'ENGINES_FILE',
  'ENGINES_JSON',
  'TRUST_PROXY',
  'METRICS_PORT',
  'CREDENTIAL_SIGNING_KEY',
];
/** Never echoed in a configuration error. */
const SECRET_VARIABLES = new Set([
  'STARTING_API_KEY',
  'DATABASE_URL',
  'ADMIN_API_KEY_SHA256',
  'CREDENTIAL_SIGNING_KEY',
]);

/**
 * Secret settings that may come from a file instead (`<NAME>_FILE`: a Docker or Kubernetes secret
 * mounted as a file), so that the value never sits in the process's environment or in `docker inspect`.
 * STARTING_API_KEY_FILE is read in AppConfig, which checks the key's format without showing it.
 */
export const FILE_SETTINGS = ['DATABASE_URL', 'ADMIN_API_KEY_SHA256', 'CREDENTIAL_SIGNING_KEY'] as const;

/** `env` with each FILE_SETTINGS variable read from its `_FILE` (trimmed), when that is set. */
function withSecretFiles(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const resolved = { ...env };
  for (const name of FILE_SETTINGS) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name]?.trim()) {
      throw new ConfigError(`Invalid configuration:\n  ${name} and ${name}_FILE: set one, not both`);
    }
    let value: string;
    try {
      value = readFileSync(file, 'utf8').trim();
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(`Invalid configuration:\n  ${name}_FILE=${JSON.stringify(file)}: ${reason}`);
    }
    if (!value)
      throw new ConfigError(`Invalid configuration:\n  ${name}_FILE=${JSON.stringify(file)}: the file is empty`);
    resolved[name] = value;
  }
  return resolved;
}

export function parseEnvironment(given: Record<string, string | undefined>): Environment {
  const env = withSecretFiles(given);
  const raw: Record<string, string> = {};
  for (const key of Object.keys(new Environment())) {
    if (env[key] !== undefined) raw[key] = env[key];
  }
  for (const key of OPTIONAL) {
    if (env[key] !== undefined) raw[key] = env[key];
  }
  const parsed = plainToInstance(Environment, raw, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(parsed, { whitelist: true });
  if (errors.length) {
    const lines = errors.flatMap((e) =>
      Object.values(e.constraints ?? {}).map((m) =>
        SECRET_VARIABLES.has(e.property)
          ? `  ${e.property} (value not shown): ${m}`
          : `  ${e.property}=${JSON.stringify(raw[e.property])}: ${m}`,
      ),
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed;
}

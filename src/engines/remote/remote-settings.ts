/**
 * Settings of a remote transcription engine (`"kind": "remote"` in the engines document), with
 * their defaults. See README "Serving real models" for worked examples.
 */
import type { ConfigSection, CredentialRef } from '../registry/config-section';
import { type FileUpstreamSettings, parseFileUpstream } from './file-upstream-settings';

export const PROTOCOLS = ['vllm-realtime', 'openai-realtime'] as const;
export type RemoteProtocolName = (typeof PROTOCOLS)[number];

export interface RemoteSettings {
  protocol: RemoteProtocolName;
  /** ws:// or wss:// URLs of the workers' realtime endpoints. */
  workers: URL[];
  /** Resolve each worker URL's host name to all its addresses (a Kubernetes headless Service). */
  resolveDns: boolean;
  dnsRefreshMs: number;
  maxStreamsPerWorker: number;
  /** Sample rate the worker takes; session audio (24 kHz) is resampled to it. */
  sampleRate: number;
  /** Model name sent to the worker (vLLM's served model, or the worker Continuum's model id). */
  model: string;
  languages: string[];
  apiKey: CredentialRef | null;
  /** HTTP path probed on each worker (GET, 2xx = healthy); null: a failed worker is retried on backoff alone. */
  healthPath: string | null;
  healthIntervalMs: number;
  connectTimeoutMs: number;
  /** A worker that sends nothing for this long while a final transcript is owed has stalled. */
  stallTimeoutMs: number;
  /** Moves to another worker for one utterance before the stream ends (engine_unavailable). */
  maxFailovers: number;
  backoffMinMs: number;
  backoffMaxMs: number;
  /** Audio kept before the detected speech onset and sent with the utterance. */
  prefixPaddingMs: number;
  /** Batch requests' files go whole to this upstream; null: they are fed through the workers' streams. */
  files: FileUpstreamSettings | null;
}

const KEYS = [
  'protocol',
  'workers',
  'resolveDns',
  'dnsRefreshMs',
  'maxStreamsPerWorker',
  'sampleRate',
  'model',
  'languages',
  'apiKey',
  'healthPath',
  'healthIntervalMs',
  'connectTimeoutMs',
  'stallTimeoutMs',
  'maxFailovers',
  'backoffMinMs',
  'backoffMaxMs',
  'prefixPaddingMs',
  'files',
];

export function parseRemoteSettings(section: ConfigSection): RemoteSettings {
  section.allowOnly(KEYS);
  const protocol = section.oneOf('protocol', PROTOCOLS);
  const urls = section.values.workers;
  if (!Array.isArray(urls) || urls.length === 0) throw section.error('workers', 'must list at least one worker URL');
  const workers = urls.map((value, i) => section.socketUrl(value, `workers[${i}]`));
  const resolveDns = section.values.resolveDns ?? false;
  if (typeof resolveDns !== 'boolean') throw section.error('resolveDns', 'must be true or false');
  const healthPath =
    section.values.healthPath === null
      ? null
      : section.string('healthPath', protocol === 'vllm-realtime' ? '/health' : '/healthz');
  if (healthPath !== null && !healthPath.startsWith('/')) throw section.error('healthPath', 'must start with /');
  const backoffMinMs = section.int('backoffMinMs', 500, 10, 600_000);
  return {
    protocol,
    workers,
    resolveDns,
    dnsRefreshMs: section.int('dnsRefreshMs', 10_000, 500, 3_600_000),
    maxStreamsPerWorker: section.int('maxStreamsPerWorker', 32, 1, 100_000),
    sampleRate: section.int('sampleRate', protocol === 'vllm-realtime' ? 16_000 : 24_000, 8_000, 48_000),
    model: section.string('model', protocol === 'openai-realtime' ? 'vendor-asr-streaming' : undefined),
    languages: section.strings('languages', ['en']).map((l) => l.toLowerCase()),
    apiKey: section.credential('apiKey'),
    healthPath,
    healthIntervalMs: section.int('healthIntervalMs', 5_000, 100, 600_000),
    connectTimeoutMs: section.int('connectTimeoutMs', 3_000, 50, 60_000),
    stallTimeoutMs: section.int('stallTimeoutMs', 5_000, 50, 600_000),
    maxFailovers: section.int('maxFailovers', 2, 0, 100),
    backoffMinMs,
    backoffMaxMs: section.int('backoffMaxMs', Math.max(30_000, backoffMinMs), backoffMinMs, 3_600_000),
    prefixPaddingMs: section.int('prefixPaddingMs', 300, 0, 2_000),
    files: parseFileUpstream(section, 'files'),
  };
}

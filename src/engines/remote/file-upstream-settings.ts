/**
 * A remote engine's transcription upstream for whole files (`"files"` in its section): an
 * OpenAI-compatible `POST /v1/audio/transcriptions` (speaches, vLLM, LocalAI, OpenAI itself) that
 * batch requests for the engine's model are forwarded to, instead of being fed through its workers'
 * realtime streams.
 *
 *   "files": { "url": "http://whisper:8000/v1", "model": "Systran/faster-whisper-small",
 *              "apiKey": { "env": "WHISPER_API_KEY" }, "timeoutMs": 120000 }
 */
import type { ConfigSection, CredentialRef } from '../registry/config-section';

export interface FileUpstreamSettings {
  /** The full endpoint (a base URL such as http://whisper:8000/v1 gets /audio/transcriptions). */
  url: string;
  /** The model name sent upstream. */
  model: string;
  apiKey: CredentialRef | null;
  /** The whole exchange, upload and answer, within this. */
  timeoutMs: number;
  /** Larger files are refused 413 before anything is sent (OpenAI's own limit is 25 MB). */
  maxBytes: number;
  /** Files in flight at once; more wait in the batch queue. */
  maxConcurrent: number;
  /** `verbose_json` (segments and word times) or `json` (the text only, for upstreams without it). */
  responseFormat: 'verbose_json' | 'json';
}

const KEYS = ['url', 'model', 'apiKey', 'timeoutMs', 'maxBytes', 'maxConcurrent', 'responseFormat'];
const ENDPOINT = '/audio/transcriptions';

export function parseFileUpstream(parent: ConfigSection, key: string): FileUpstreamSettings | null {
  if (!parent.has(key)) return null;
  const section = parent.section(key);
  section.allowOnly(KEYS);
  return {
    url: endpointOf(section),
    model: section.string('model'),
    apiKey: section.credential('apiKey'),
    timeoutMs: section.int('timeoutMs', 120_000, 1_000, 3_600_000),
    maxBytes: section.int('maxBytes', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxConcurrent: section.int('maxConcurrent', 4, 1, 1_000),
    responseFormat: section.oneOf('responseFormat', ['verbose_json', 'json'] as const, 'verbose_json'),
  };
}

function endpointOf(section: ConfigSection): string {
  const raw = section.string('url');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw section.error('url', 'must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw section.error('url', 'must be an http(s) URL');
  if (url.username || url.password) throw section.error('url', 'must not hold credentials (use apiKey)');
  if (url.search || url.hash) throw section.error('url', 'must not have a query or fragment');
  const base = url.href.replace(/\/+$/, '');
  return base.endsWith(ENDPOINT) ? base : `${base}${ENDPOINT}`;
}

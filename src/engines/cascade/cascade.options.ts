/**
 * Configuration of the cascaded voice agent, validated before anything starts: every refusal
 * names the setting (`<prefix>.chat.url must be …`). Upstream keys are given either as a value
 * (read by whoever reads the environment) or as a file (a mounted Kubernetes Secret); they are
 * kept out of every message, log line and response.
 */
import { readFileSync } from 'node:fs';

export interface CascadeChatSettings {
  /** Base URL of an OpenAI-compatible API (`http://llama:8080/v1`) or its full chat completions URL. */
  url: string;
  /** The served model name sent upstream. */
  model: string;
  /** The persona: sent as the system message of every request. */
  systemPrompt?: string;
  maxTokens?: number;
  temperature?: number;
  /** No response, or no streamed byte, for this long fails the turn. */
  timeoutMs?: number;
  apiKey?: string;
  apiKeyFile?: string;
}

export interface CascadeSpeechSettings {
  /** Base URL of an OpenAI-compatible API (`http://kokoro:8880/v1`) or its full audio/speech URL. */
  url: string;
  model: string;
  /** The upstream voice every session speaks with (the API's `aria`). */
  voice: string;
  speed?: number;
  timeoutMs?: number;
  apiKey?: string;
  apiKeyFile?: string;
}

/** What configuration gives (a file or environment); defaults fill the rest. */
export interface CascadeEngineSettings {
  chat: CascadeChatSettings;
  speech: CascadeSpeechSettings;
  /** Past messages sent as context (user and assistant, merged per role). Default 20. */
  historyMessages?: number;
  /** Audio sent ahead of real-time playback. Default 160. */
  outputLeadMs?: number;
  /** A run-on sentence is cut for the voice past this many characters. Default 240. */
  maxSentenceChars?: number;
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are Aria, a friendly voice assistant. Your answers are spoken aloud: reply in one to three ' +
  'short sentences of plain conversational text, without lists, Markdown, emoji or URLs.';

/** Validated settings with defaults applied and keys loaded. */
export interface CascadeEngineOptions {
  chat: {
    url: string;
    model: string;
    systemPrompt: string;
    maxTokens: number;
    temperature: number;
    timeoutMs: number;
    apiKey: string | null;
  };
  speech: {
    url: string;
    model: string;
    voice: string;
    speed: number;
    timeoutMs: number;
    apiKey: string | null;
  };
  historyMessages: number;
  outputLeadMs: number;
  maxSentenceChars: number;
}

export class CascadeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CascadeConfigError';
  }
}

type Raw = Record<string, unknown>;

/** Validates `raw` (named `prefix` in messages) and loads key files. Throws CascadeConfigError. */
export function resolveCascadeOptions(raw: unknown, prefix = 'cascade'): CascadeEngineOptions {
  const root = object(raw, prefix);
  const chat = object(root.chat, `${prefix}.chat`);
  const speech = object(root.speech, `${prefix}.speech`);
  const c = `${prefix}.chat`;
  const s = `${prefix}.speech`;
  return {
    chat: {
      url: endpoint(chat.url, `${c}.url`, '/chat/completions'),
      model: text(chat.model, `${c}.model`),
      systemPrompt:
        chat.systemPrompt === undefined ? DEFAULT_SYSTEM_PROMPT : text(chat.systemPrompt, `${c}.systemPrompt`, true),
      maxTokens: integer(chat.maxTokens, `${c}.maxTokens`, 256, 1, 32_768),
      temperature: number(chat.temperature, `${c}.temperature`, 0.7, 0, 2),
      timeoutMs: integer(chat.timeoutMs, `${c}.timeoutMs`, 15_000, 100, 600_000),
      apiKey: key(chat, c),
    },
    speech: {
      url: endpoint(speech.url, `${s}.url`, '/audio/speech'),
      model: text(speech.model, `${s}.model`),
      voice: text(speech.voice, `${s}.voice`),
      speed: number(speech.speed, `${s}.speed`, 1, 0.25, 4),
      timeoutMs: integer(speech.timeoutMs, `${s}.timeoutMs`, 10_000, 100, 600_000),
      apiKey: key(speech, s),
    },
    historyMessages: integer(root.historyMessages, `${prefix}.historyMessages`, 20, 0, 1000),
    outputLeadMs: integer(root.outputLeadMs, `${prefix}.outputLeadMs`, 160, 0, 10_000),
    maxSentenceChars: integer(root.maxSentenceChars, `${prefix}.maxSentenceChars`, 240, 20, 10_000),
  };
}

function object(value: unknown, name: string): Raw {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CascadeConfigError(`${name} must be an object`);
  return value as Raw;
}

function text(value: unknown, name: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value.trim() === ''))
    throw new CascadeConfigError(`${name} must be a non-empty string`);
  return value;
}

function number(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max)
    throw new CascadeConfigError(`${name} must be a number from ${min} to ${max}`);
  return n;
}

function integer(value: unknown, name: string, fallback: number, min: number, max: number): number {
  const n = number(value, name, fallback, min, max);
  if (!Number.isInteger(n)) throw new CascadeConfigError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** An http(s) URL without credentials; a base URL gets the endpoint's path appended. */
function endpoint(value: unknown, name: string, path: string): string {
  let url: URL;
  try {
    url = new URL(text(value, name));
  } catch {
    throw new CascadeConfigError(`${name} must be an http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CascadeConfigError(`${name} must be an http(s) URL`);
  if (url.username || url.password)
    throw new CascadeConfigError(`${name} must not hold credentials (use apiKey or apiKeyFile)`);
  if (url.search || url.hash) throw new CascadeConfigError(`${name} must not have a query or fragment`);
  const base = url.href.replace(/\/+$/, '');
  return base.endsWith(path) ? base : `${base}${path}`;
}

function key(section: Raw, name: string): string | null {
  const { apiKey, apiKeyFile } = section;
  if (apiKey !== undefined && apiKeyFile !== undefined)
    throw new CascadeConfigError(`${name}.apiKey and ${name}.apiKeyFile are exclusive`);
  if (apiKey !== undefined) {
    if (typeof apiKey !== 'string' || apiKey.trim() === '')
      throw new CascadeConfigError(`${name}.apiKey must be a non-empty string`);
    return apiKey.trim();
  }
  if (apiKeyFile === undefined) return null;
  const path = text(apiKeyFile, `${name}.apiKeyFile`);
  let content: string;
  try {
    content = readFileSync(path, 'utf8').trim();
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new CascadeConfigError(`${name}.apiKeyFile cannot be read (${code})`);
  }
  if (content === '') throw new CascadeConfigError(`${name}.apiKeyFile is empty`);
  return content;
}

/**
 * Configuration of the cascaded voice agent, validated before anything starts: every refusal is a
 * CascadeConfigError naming the setting (`chat.url`) and the problem, so the engines registry can
 * report it as `ENGINES_FILE=… engines.voicechat.chat.url: must be an http(s) URL`. Upstream keys
 * are never values in the configuration: `{"env": "NAME"}` or `{"file": "/run/secrets/key"}` (a
 * mounted Kubernetes Secret), resolved by the caller's credential reader for every request (a
 * rotated Secret is picked up), and kept out of every message, log line and response.
 */
import type { ChatClientOptions } from './chat-client';
import type { SpeechClientOptions } from './speech-client';
import { credentialRef, type CredentialRef } from '../registry/credential-ref';

export type { CredentialRef };

/** The engine's section of the configuration, validated, defaults applied. */
export interface CascadeSettings {
  chat: {
    /** Base URL of an OpenAI-compatible API (`http://llama:8080/v1`) or its full chat completions URL. */
    url: string;
    /** The served model name sent upstream. */
    model: string;
    /** The persona: the system message of every request. */
    systemPrompt: string;
    maxTokens: number;
    temperature: number;
    /** No response, or no streamed byte, for this long fails the turn. */
    timeoutMs: number;
    apiKey: CredentialRef | null;
  };
  speech: {
    /** Base URL of an OpenAI-compatible API (`http://kokoro:8880/v1`) or its full audio/speech URL. */
    url: string;
    model: string;
    /** The upstream voice every session speaks with (the API's `aria`). */
    voice: string;
    speed: number;
    timeoutMs: number;
    apiKey: CredentialRef | null;
  };
  /** Conversation messages sent, the current question included (user and assistant, merged per role). */
  historyMessages: number;
  /** Audio sent ahead of real-time playback. */
  outputLeadMs: number;
  /** A run-on sentence is cut for the voice past this many characters. */
  maxSentenceChars: number;
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are Aria, a friendly voice assistant. Your answers are spoken aloud: reply in one to three ' +
  'short sentences of plain conversational text, without lists, Markdown, emoji or URLs.';

/** What the engine runs with: settings whose credentials are readers. */
export interface CascadeEngineOptions {
  chat: ChatClientOptions;
  speech: SpeechClientOptions;
  systemPrompt: string;
  historyMessages: number;
  outputLeadMs: number;
  maxSentenceChars: number;
}

export class CascadeConfigError extends Error {
  constructor(
    /** The setting, relative to the engine's section (`chat.url`). */
    readonly key: string,
    readonly problem: string,
  ) {
    super(`${key}: ${problem}`);
    this.name = 'CascadeConfigError';
  }
}

export const SETTING_KEYS = ['chat', 'speech', 'historyMessages', 'outputLeadMs', 'maxSentenceChars'];
const CHAT_KEYS = ['url', 'model', 'systemPrompt', 'maxTokens', 'temperature', 'timeoutMs', 'apiKey'];
const SPEECH_KEYS = ['url', 'model', 'voice', 'speed', 'timeoutMs', 'apiKey'];

/** Validates the engine's section. Throws CascadeConfigError. */
export function parseCascadeSettings(raw: unknown, extraKeys: readonly string[] = []): CascadeSettings {
  const root = object(raw, '(section)', [...SETTING_KEYS, ...extraKeys]);
  const chat = object(root.chat, 'chat', CHAT_KEYS);
  const speech = object(root.speech, 'speech', SPEECH_KEYS);
  return {
    chat: {
      url: endpoint(chat.url, 'chat.url', '/chat/completions'),
      model: text(chat.model, 'chat.model'),
      systemPrompt:
        chat.systemPrompt === undefined ? DEFAULT_SYSTEM_PROMPT : text(chat.systemPrompt, 'chat.systemPrompt', true),
      maxTokens: integer(chat.maxTokens, 'chat.maxTokens', 256, 1, 32_768),
      temperature: number(chat.temperature, 'chat.temperature', 0.7, 0, 2),
      timeoutMs: integer(chat.timeoutMs, 'chat.timeoutMs', 15_000, 100, 600_000),
      apiKey: credential(chat.apiKey, 'chat.apiKey'),
    },
    speech: {
      url: endpoint(speech.url, 'speech.url', '/audio/speech'),
      model: text(speech.model, 'speech.model'),
      voice: text(speech.voice, 'speech.voice'),
      speed: number(speech.speed, 'speech.speed', 1, 0.25, 4),
      timeoutMs: integer(speech.timeoutMs, 'speech.timeoutMs', 10_000, 100, 600_000),
      apiKey: credential(speech.apiKey, 'speech.apiKey'),
    },
    historyMessages: integer(root.historyMessages, 'historyMessages', 20, 1, 1000),
    outputLeadMs: integer(root.outputLeadMs, 'outputLeadMs', 160, 0, 10_000),
    maxSentenceChars: integer(root.maxSentenceChars, 'maxSentenceChars', 240, 20, 10_000),
  };
}

/**
 * The engine's options: each configured key must resolve now (a missing Secret stops the start),
 * and is read again for every request.
 */
export function cascadeEngineOptions(
  settings: CascadeSettings,
  readCredential: (ref: CredentialRef) => string | undefined,
): CascadeEngineOptions {
  const reader = (ref: CredentialRef | null, key: string): (() => string | null) => {
    if (ref === null) return () => null;
    let first: string | undefined;
    try {
      first = readCredential(ref);
    } catch {
      first = undefined;
    }
    if (!first) throw new CascadeConfigError(key, `${JSON.stringify(ref)} is empty or unset`);
    return () => {
      try {
        return readCredential(ref) ?? null;
      } catch {
        return null; // the upstream then refuses the request: the turn fails, the session goes on
      }
    };
  };
  const { chat, speech } = settings;
  return {
    chat: {
      url: chat.url,
      model: chat.model,
      maxTokens: chat.maxTokens,
      temperature: chat.temperature,
      timeoutMs: chat.timeoutMs,
      apiKey: reader(chat.apiKey, 'chat.apiKey'),
    },
    speech: {
      url: speech.url,
      model: speech.model,
      voice: speech.voice,
      speed: speech.speed,
      timeoutMs: speech.timeoutMs,
      apiKey: reader(speech.apiKey, 'speech.apiKey'),
    },
    systemPrompt: chat.systemPrompt,
    historyMessages: settings.historyMessages,
    outputLeadMs: settings.outputLeadMs,
    maxSentenceChars: settings.maxSentenceChars,
  };
}

type Raw = Record<string, unknown>;

function object(value: unknown, name: string, known: readonly string[]): Raw {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CascadeConfigError(name, 'must be an object');
  for (const key of Object.keys(value)) {
    // A typo must not fall back to a default silently.
    if (!known.includes(key))
      throw new CascadeConfigError(
        name === '(section)' ? key : `${name}.${key}`,
        `unknown setting (known: ${known.join(', ')})`,
      );
  }
  return value as Raw;
}

function text(value: unknown, name: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value.trim() === ''))
    throw new CascadeConfigError(name, 'must be a non-empty string');
  return value;
}

function number(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max)
    throw new CascadeConfigError(name, `must be a number from ${min} to ${max}`);
  return n;
}

function integer(value: unknown, name: string, fallback: number, min: number, max: number): number {
  const n = number(value, name, fallback, min, max);
  if (!Number.isInteger(n)) throw new CascadeConfigError(name, `must be an integer from ${min} to ${max}`);
  return n;
}

/** An http(s) URL without credentials; a base URL gets the endpoint's path appended. */
function endpoint(value: unknown, name: string, path: string): string {
  let url: URL;
  try {
    url = new URL(text(value, name));
  } catch {
    throw new CascadeConfigError(name, 'must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CascadeConfigError(name, 'must be an http(s) URL');
  if (url.username || url.password) throw new CascadeConfigError(name, 'must not hold credentials (use apiKey)');
  if (url.search || url.hash) throw new CascadeConfigError(name, 'must not have a query or fragment');
  const base = url.href.replace(/\/+$/, '');
  return base.endsWith(path) ? base : `${base}${path}`;
}

/** The key itself never sits in the configuration, only where to read it. */
function credential(value: unknown, name: string): CredentialRef | null {
  return credentialRef(value, (rule) => new CascadeConfigError(name, rule));
}

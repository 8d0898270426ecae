/**
 * A conversation's own settings (instructions, tools, tool choice, modalities, token limit) and its
 * turns (turn detection with what it asks of the conversation), as values the core runs with. Each
 * rule takes the `param` its value came at, so a refusal names the field as the client spelt it.
 */
import type { ConversationTool, ToolChoice, TurnDetectionConfig } from '../engine/engine.port';
import { DEFAULT_VAD } from '../model/defaults';
import { bounded, isRecord, known, object, SettingRefusal, string } from './setting-refusal';
import { EAGERNESS, IDLE_TIMEOUT_MS, MAX_OUTPUT_TOKENS, TEXT_LIMITS, VAD_BOUNDS } from './settings.rules';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const TOOL_FIELDS = new Set(['type', 'name', 'description', 'parameters']);

export function tools(value: unknown, param: string): ConversationTool[] {
  if (!Array.isArray(value)) throw new SettingRefusal('invalid_type', `${param} must be an array`, param);
  if (value.length > TEXT_LIMITS.tools) {
    throw new SettingRefusal('array_above_max_length', `${param} holds more than ${TEXT_LIMITS.tools} tools`, param);
  }
  const names = new Set<string>();
  return value.map((raw, i) => {
    const at = `${param}[${i}]`;
    const tool = object(raw, at, true);
    if (tool.type !== 'function') {
      throw new SettingRefusal(
        'invalid_value',
        `${at}.type: only "function" tools are served (MCP servers are not: run the tool in your client and return its output as function_call_output)`,
        `${at}.type`,
      );
    }
    known(tool, TOOL_FIELDS, at);
    const name = string(tool.name, `${at}.name`, true)!;
    if (!TOOL_NAME.test(name)) {
      throw new SettingRefusal('invalid_value', `${at}.name must be 1 to 64 letters, digits, _ or -`, `${at}.name`);
    }
    if (names.has(name)) throw new SettingRefusal('invalid_value', `${at}.name: ${name} is named twice`, `${at}.name`);
    names.add(name);
    const parameters = tool.parameters === undefined ? { type: 'object', properties: {} } : tool.parameters;
    if (!isRecord(parameters)) {
      throw new SettingRefusal('invalid_type', `${at}.parameters must be a JSON Schema object`, `${at}.parameters`);
    }
    const description = string(tool.description, `${at}.description`, false, TEXT_LIMITS.text) ?? '';
    return { name, description, parameters };
  });
}

export function toolChoice(value: unknown, param: string): ToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (isRecord(value) && value.type === 'function' && typeof value.name === 'string') return { name: value.name };
  throw new SettingRefusal(
    'invalid_value',
    `${param} must be "auto", "none", "required" or {"type":"function","name":...} (MCP choices are not served)`,
    param,
  );
}

/** `["audio"]` or `["text"]`: true for audio (its transcript is the text). */
export function outputModalities(value: unknown, param: string): boolean {
  if (Array.isArray(value) && value.length === 1 && (value[0] === 'audio' || value[0] === 'text')) {
    return value[0] === 'audio';
  }
  throw new SettingRefusal('invalid_value', `${param} must be ["audio"] or ["text"]`, param);
}

/** A number of tokens, or "inf" (the engine's own limit: null). */
export function maxOutputTokens(value: unknown, param: string): number | null {
  if (value === 'inf') return null;
  return bounded(value, param, MAX_OUTPUT_TOKENS) ?? null;
}

export function instructions(value: unknown, param: string): string {
  return string(value, param, true, TEXT_LIMITS.text)!;
}

/** Tracing goes to OpenAI's dashboard; there is none here. Accepted (the Agents SDK sends it) and shown. */
export function tracing(value: unknown, param: string): unknown {
  if (value !== null && value !== 'auto' && !isRecord(value)) {
    throw new SettingRefusal('invalid_value', `${param} must be "auto", an object or null`, param);
  }
  return value;
}

export function prompt(value: unknown, param: string): void {
  if (value === undefined || value === null) return;
  throw new SettingRefusal(
    'unsupported_parameter',
    `${param}: stored prompt templates live on OpenAI and are not served here; send the text as session.instructions`,
    param,
  );
}

export function truncation(value: unknown, param: string): void {
  if (value === undefined || value === 'auto') return;
  throw new SettingRefusal(
    'unsupported_parameter',
    `${param}: only "auto" is served (the oldest items leave the context first)`,
    param,
  );
}

/** A conversation's turns: what the engine's turn detection runs with, and what it asks of the conversation. */
export interface ConversationTurns {
  /** null: manual commits (the client commits each turn and asks for each response). */
  readonly turnDetection: TurnDetectionConfig | null;
  readonly createResponse: boolean;
  readonly interruptResponse: boolean;
  /** null: off. */
  readonly idleTimeoutMs: number | null;
  /** How the client asked for it: semantic_vad names an eagerness instead of server_vad's numbers. */
  readonly semantic: { readonly eagerness: string } | null;
}

export const MANUAL_TURNS: ConversationTurns = {
  turnDetection: null,
  createResponse: false,
  interruptResponse: true,
  idleTimeoutMs: null,
  semantic: null,
};

const SERVER_VAD = ['threshold', 'prefix_padding_ms', 'silence_duration_ms'] as const;
const TURN_FIELDS = new Set([
  'type',
  ...SERVER_VAD,
  'idle_timeout_ms',
  'create_response',
  'interrupt_response',
  'eagerness',
]);

/**
 * A Realtime conversation's `turn_detection` (server_vad or semantic_vad, OpenAI's fields; null for
 * manual commits) → its turns. OpenAI's rules: eagerness is semantic_vad's alone, the numbers
 * server_vad's, and the idle timeout is served with server_vad only.
 */
export function conversationTurns(value: unknown, param: string): ConversationTurns {
  if (value === null) return MANUAL_TURNS;
  const vad = object(value, param);
  known(vad, TURN_FIELDS, param);
  const type = vad.type ?? 'server_vad';
  if (type !== 'server_vad' && type !== 'semantic_vad') {
    throw new SettingRefusal(
      'invalid_value',
      `${param}.type must be "server_vad" or "semantic_vad" (or null for manual commits)`,
      `${param}.type`,
    );
  }
  for (const flag of ['create_response', 'interrupt_response'] as const) {
    if (vad[flag] !== undefined && typeof vad[flag] !== 'boolean') {
      throw new SettingRefusal('invalid_type', `${param}.${flag} must be a boolean`, `${param}.${flag}`);
    }
  }
  const idle = vad.idle_timeout_ms ?? null;
  if (idle !== null && type === 'semantic_vad') {
    throw new SettingRefusal(
      'unsupported_parameter',
      `${param}.idle_timeout_ms is served with server_vad only, as OpenAI serves it (set it to null or use server_vad)`,
      `${param}.idle_timeout_ms`,
    );
  }
  const flags = {
    createResponse: vad.create_response !== false,
    interruptResponse: vad.interrupt_response !== false,
    idleTimeoutMs: idle === null ? null : bounded(idle, `${param}.idle_timeout_ms`, IDLE_TIMEOUT_MS)!,
  };
  const foreign = type === 'semantic_vad' ? SERVER_VAD.find((field) => vad[field] !== undefined) : 'eagerness';
  if (foreign !== undefined && vad[foreign] !== undefined) {
    throw new SettingRefusal('unknown_parameter', `Unknown parameter: '${param}.${foreign}'.`, `${param}.${foreign}`);
  }
  if (type === 'semantic_vad') {
    const eagerness = vad.eagerness ?? 'auto';
    const endOfTurn = typeof eagerness === 'string' ? EAGERNESS[eagerness] : undefined;
    if (endOfTurn === undefined) {
      throw new SettingRefusal(
        'invalid_value',
        `${param}.eagerness must be low, medium, high or auto`,
        `${param}.eagerness`,
      );
    }
    return { ...flags, turnDetection: { ...DEFAULT_VAD, endOfTurn }, semantic: { eagerness: eagerness as string } };
  }
  const turnDetection: TurnDetectionConfig = {
    type: 'server_vad',
    threshold: bounded(vad.threshold, `${param}.threshold`, VAD_BOUNDS.threshold) ?? DEFAULT_VAD.threshold,
    prefixPaddingMs:
      bounded(vad.prefix_padding_ms, `${param}.prefix_padding_ms`, VAD_BOUNDS.prefixPaddingMs) ??
      DEFAULT_VAD.prefixPaddingMs,
    silenceDurationMs:
      bounded(vad.silence_duration_ms, `${param}.silence_duration_ms`, VAD_BOUNDS.silenceDurationMs) ??
      DEFAULT_VAD.silenceDurationMs,
  };
  return { ...flags, turnDetection, semantic: null };
}

/**
 * Validation pieces shared by the conversation events: a refusal thrown inside a parser and turned
 * into an OpenAI-shaped `error` at its edge, strict objects, tools and tool choice.
 */
import type { ConversationTool, ToolChoice } from '../../../../session-core';
import { isRecord, type Fields } from '../../../connection/client-frames';

export class Refusal {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly param: string | null,
  ) {}
}

/** An absent optional object reads as empty; anything else must be an object. */
export function object(value: unknown, param: string, required = false): Fields {
  if (value === undefined && !required) return {};
  if (!isRecord(value)) {
    const kind = value === undefined ? 'missing_required_parameter' : 'invalid_type';
    throw new Refusal(kind, `${param} must be an object`, param);
  }
  return value;
}

export function known(fields: Fields, allowed: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(fields)) {
    if (!allowed.has(key)) {
      const param = prefix === '' ? key : `${prefix}.${key}`;
      throw new Refusal('unknown_parameter', `Unknown parameter: '${param}'.`, param);
    }
  }
}

export function string(value: unknown, param: string, required = false, max = 1_000_000): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') {
    throw new Refusal(
      value === undefined ? 'missing_required_parameter' : 'invalid_type',
      `${param} must be a string`,
      param,
    );
  }
  if (value.length > max)
    throw new Refusal('string_above_max_length', `${param} is longer than ${max} characters`, param);
  return value;
}

export function integer(value: unknown, param: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new Refusal('invalid_type', `${param} must be an integer`, param);
  }
  if (value < min || value > max)
    throw new Refusal('invalid_value', `${param} must be between ${min} and ${max}`, param);
  return value;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const TOOL_FIELDS = new Set(['type', 'name', 'description', 'parameters']);
/** Instructions, tool descriptions and item text: generous, but bounded. */
export const MAX_TEXT = 100_000;

export function tools(value: unknown, param: string): ConversationTool[] {
  if (!Array.isArray(value)) throw new Refusal('invalid_type', `${param} must be an array`, param);
  if (value.length > 128) throw new Refusal('array_above_max_length', `${param} holds more than 128 tools`, param);
  const names = new Set<string>();
  return value.map((raw, i) => {
    const at = `${param}[${i}]`;
    const tool = object(raw, at, true);
    if (tool.type !== 'function') {
      throw new Refusal(
        'invalid_value',
        `${at}.type: only "function" tools are served (MCP servers are not: run the tool in your client and return its output as function_call_output)`,
        `${at}.type`,
      );
    }
    known(tool, TOOL_FIELDS, at);
    const name = string(tool.name, `${at}.name`, true)!;
    if (!TOOL_NAME.test(name)) {
      throw new Refusal('invalid_value', `${at}.name must be 1 to 64 letters, digits, _ or -`, `${at}.name`);
    }
    if (names.has(name)) throw new Refusal('invalid_value', `${at}.name: ${name} is named twice`, `${at}.name`);
    names.add(name);
    const parameters = tool.parameters === undefined ? { type: 'object', properties: {} } : tool.parameters;
    if (!isRecord(parameters))
      throw new Refusal('invalid_type', `${at}.parameters must be a JSON Schema object`, `${at}.parameters`);
    return { name, description: string(tool.description, `${at}.description`, false, MAX_TEXT) ?? '', parameters };
  });
}

export function toolChoice(value: unknown, param: string): ToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return value;
  if (isRecord(value) && value.type === 'function' && typeof value.name === 'string') return { name: value.name };
  throw new Refusal(
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
  throw new Refusal('invalid_value', `${param} must be ["audio"] or ["text"]`, param);
}

/** A number of tokens, or "inf" (the engine's own limit). */
export function maxOutputTokens(value: unknown, param: string): number | null {
  if (value === 'inf') return null;
  return integer(value, param, 1, 4096)!;
}

/** An engine without tool calls refuses tools the same way wherever they are set (socket or client secret). */
export function toolsRefusal(param: string, model: string): Refusal {
  return new Refusal(
    'unsupported_parameter',
    `${param}: this model's engine (the embedded voicechat) cannot call tools; configure a cascade engine with a chat server for ${model} to use them`,
    param,
  );
}

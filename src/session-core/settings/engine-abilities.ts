/**
 * What a conversation engine can serve of the settings: tools only if it calls them; an engine that
 * answers spoken turns by itself (the embedded voicechat: it is never asked for a response, and ends
 * its answer when it hears speech) can neither let an answer play on over the user nor prompt after
 * a silence. The same rule answers a socket's session.update and a client secret's request.
 */
import type { ConversationCapabilities } from '../engine/engine.port';
import { SettingRefusal } from './setting-refusal';

export interface AskedOfEngine {
  readonly tools?: readonly unknown[];
  readonly interruptResponse?: boolean;
  readonly idleTimeoutMs?: number | null;
}

/** The first setting the engine cannot serve, as a refusal at the param `prefix` names its fields under. */
export function unservedByEngine(
  asked: AskedOfEngine,
  engine: ConversationCapabilities | undefined,
  model: string,
  prefix = 'session',
): SettingRefusal | null {
  if ((asked.tools?.length ?? 0) > 0 && engine?.tools !== true) return toolsRefusal(`${prefix}.tools`, model);
  if (engine?.responses === true) return null;
  const param = `${prefix}.audio.input.turn_detection`;
  const why = "this model's engine (the embedded voicechat) answers spoken turns by itself";
  if (asked.interruptResponse === false) {
    const message = `${param}.interrupt_response: false is not served: ${why} and ends its answer when the user speaks`;
    return new SettingRefusal('unsupported_parameter', message, `${param}.interrupt_response`);
  }
  if (asked.idleTimeoutMs !== undefined && asked.idleTimeoutMs !== null) {
    const message = `${param}.idle_timeout_ms is not served: ${why} and cannot be asked to prompt the user`;
    return new SettingRefusal('unsupported_parameter', message, `${param}.idle_timeout_ms`);
  }
  return null;
}

/** An engine without tool calls refuses tools the same way wherever they are set. */
export function toolsRefusal(param: string, model: string): SettingRefusal {
  return new SettingRefusal(
    'unsupported_parameter',
    `${param}: this model's engine (the embedded voicechat) cannot call tools; configure a cascade engine with a chat server for ${model} to use them`,
    param,
  );
}

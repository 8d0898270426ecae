/**
 * What a conversation session starts with: its configuration as its engine can serve it, and what
 * `session.created` shows of its turn detection. A client secret's configuration may ask for
 * `interrupt_response: false` or an idle timeout; an engine that answers spoken turns by itself can
 * do neither (it ends its answer on speech, and is never asked for a response), so such a session
 * starts without them and shows so, as a session.update asking for them is refused.
 */
import type { ConversationSettings, SessionConfig } from '../../../../session-core';
import { DEFAULT_LANGUAGE, DEFAULT_VAD, VOICE } from '../../../../session-core';
import { Refusal, toolsRefusal } from './conversation.fields';
import { parseConversationUpdate, type ConversationView } from './conversation.session-update';

/** What a conversation session runs with when its client secret does not say otherwise. */
export function conversationConfig(model: string): SessionConfig {
  return {
    type: 'live',
    model,
    voice: VOICE,
    language: DEFAULT_LANGUAGE,
    turnDetection: DEFAULT_VAD,
    outputEncoding: 'base64',
    conversation: true,
  };
}

export interface SecretSettings {
  readonly settings: Partial<ConversationSettings>;
  readonly view: Partial<ConversationView>;
  /** What is refused of them now: an `error` after session.created; the session runs on without it. */
  readonly refusal: Refusal | null;
}

/**
 * A client secret's settings, taken as a session.update before the session starts, so that
 * session.created shows them. They passed the same parser when the secret was issued; it refuses
 * them now only if a rule or this instance's engine (tools) changed since.
 */
export function secretSettings(
  session: Record<string, unknown>,
  model: string,
  aliases: ReadonlyMap<string, string>,
  callsTools: boolean,
): SecretSettings {
  let parsed: ReturnType<typeof parseConversationUpdate>;
  try {
    parsed = parseConversationUpdate({ type: 'realtime', ...session }, model, aliases);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { settings: {}, view: {}, refusal: error };
  }
  const { tools, ...settings } = parsed.settings;
  if (tools === undefined || callsTools || tools.length === 0) {
    return { settings: parsed.settings, view: parsed.view, refusal: null };
  }
  return { settings, view: parsed.view, refusal: toolsRefusal('session.tools', model) };
}

export function servedConfig(config: SessionConfig, engineResponds: boolean): SessionConfig {
  if (engineResponds && config.turnDetection !== null) return config;
  const { interruptResponse: _interrupt, idleTimeoutMs: _idle, createResponse: _create, ...served } = config;
  return served;
}

export function startingView(config: SessionConfig): ConversationView {
  const td = config.turnDetection;
  return {
    model: config.model,
    voice: config.voice ?? VOICE,
    transcriptionModel: 'vendor-asr-streaming',
    turnDetection:
      td === null
        ? null
        : {
            type: 'server_vad',
            threshold: td.threshold,
            prefix_padding_ms: td.prefixPaddingMs,
            silence_duration_ms: td.silenceDurationMs,
            idle_timeout_ms: config.idleTimeoutMs ?? null,
            create_response: config.createResponse !== false,
            interrupt_response: config.interruptResponse !== false,
          },
    tracing: null,
  };
}

/**
 * What a conversation session starts with: its configuration as its engine can serve it, and what
 * `session.created` shows of it. A client secret that asks an engine for what it cannot serve is
 * refused when it is issued (session-core/settings/engine-abilities.ts), as a session.update is.
 */
import type { ConversationSettings, SessionConfig } from '../../../../session-core';
import { DEFAULT_LANGUAGE, DEFAULT_VAD, VOICE } from '../../../../session-core';
import { realtimeTurnDetectionView, serverVadView, type SecretConversation } from '../../../../session-core';
import { Refusal, toolsRefusal } from './conversation.fields';
import type { ConversationView } from './conversation.session-update';

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
 * A client secret's settings, normalized when the secret was issued (session-core/settings), so that
 * session.created shows them. Only this instance's engine can refuse them now: tools, when it calls
 * none (its configuration changed since the secret was issued).
 */
export function secretSettings(secret: SecretConversation, model: string, callsTools: boolean): SecretSettings {
  const { turns } = secret;
  const view: Partial<ConversationView> = {
    ...(secret.tracing === undefined ? {} : { tracing: secret.tracing }),
    ...(secret.transcriptionModel === undefined ? {} : { transcriptionModel: secret.transcriptionModel }),
    ...(turns === undefined ? {} : { turnDetection: realtimeTurnDetectionView(turns) }),
  };
  const settings = { ...secret.settings, ...(turns === undefined ? {} : { createResponse: turns.createResponse }) };
  const { tools, ...rest } = settings;
  if (tools === undefined || callsTools || tools.length === 0) return { settings, view, refusal: null };
  return { settings: rest, view, refusal: toolsRefusal('session.tools', model) };
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
            ...serverVadView(td),
            idle_timeout_ms: config.idleTimeoutMs ?? null,
            create_response: config.createResponse !== false,
            interrupt_response: config.interruptResponse !== false,
          },
    tracing: null,
  };
}

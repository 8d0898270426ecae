/**
 * The settings as the Realtime dialect shows them (`session.created`, `session.updated`, and a
 * client secret's answer): OpenAI's GA names and shapes, defaults filled in.
 */
import type { ConversationSettings } from '../conversation/conversation.types';
import type { TurnDetectionConfig } from '../engine/engine.port';
import type { ConversationTurns } from './conversation.rules';
import type { Fields } from './setting-refusal';

export function realtimeSettingsView(settings: ConversationSettings): Fields {
  return {
    output_modalities: [settings.audio ? 'audio' : 'text'],
    instructions: settings.instructions,
    tools: settings.tools.map((tool) => ({ type: 'function', ...tool })),
    tool_choice:
      typeof settings.toolChoice === 'string'
        ? settings.toolChoice
        : { type: 'function', name: settings.toolChoice.name },
    max_output_tokens: settings.maxOutputTokens ?? 'inf',
  };
}

/** OpenAI's `server_vad` turn_detection object: the fields every surface that shows or stores one has. */
export function serverVadView(td: TurnDetectionConfig) {
  return {
    type: 'server_vad' as const,
    threshold: td.threshold,
    prefix_padding_ms: td.prefixPaddingMs,
    silence_duration_ms: td.silenceDurationMs,
  };
}

/** OpenAI's turn_detection object for the turns (null: manual commits). */
export function realtimeTurnDetectionView(turns: ConversationTurns): Fields | null {
  const td = turns.turnDetection;
  if (td === null) return null;
  const flags = { create_response: turns.createResponse, interrupt_response: turns.interruptResponse };
  if (turns.semantic !== null) return { type: 'semantic_vad', eagerness: turns.semantic.eagerness, ...flags };
  return { ...serverVadView(td), idle_timeout_ms: turns.idleTimeoutMs, ...flags };
}

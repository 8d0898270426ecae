/**
 * What a conversation session starts with: its configuration as its engine can serve it, and what
 * `session.created` shows of its turn detection. A client secret's configuration may ask for
 * `interrupt_response: false` or an idle timeout; an engine that answers spoken turns by itself can
 * do neither (it ends its answer on speech, and is never asked for a response), so such a session
 * starts without them and shows so, as a session.update asking for them is refused.
 */
import type { SessionConfig } from '../../../../session-core';
import { VOICE } from '../../../../session-core';
import type { ConversationView } from './conversation.session-update';

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

import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { AppConfig } from '../../../../config/app-config';
import { ENGINE_REGISTRY, type EngineRegistry } from '../../../../engines';
import {
  REALTIME_SESSION_CHECK,
  type RealtimeSessionCheck,
  type RealtimeSessionVerdict,
} from '../../../../modules/client-secrets';
import { DEFAULT_CONVERSATION_SETTINGS } from '../../../../session-core';
import { Refusal, toolsRefusal } from './conversation.fields';
import { settingsJson } from './conversation.render';
import { parseConversationUpdate } from './conversation.session-update';

/**
 * A client secret's conversation settings, held to the rules of this socket's `session.update` (the
 * one parser of them) and to the model's engine: tools are refused when it calls none, at POST, so
 * that the browser never opens a session that refuses its configuration.
 */
@Injectable()
export class ConversationSecretCheck implements RealtimeSessionCheck {
  constructor(
    @Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry,
    private readonly config: AppConfig,
  ) {}

  check(session: Record<string, unknown>, model: string): RealtimeSessionVerdict {
    try {
      const { settings } = parseConversationUpdate(
        { type: 'realtime', ...session },
        model,
        this.config.realtimeModelAliases,
      );
      if ((settings.tools?.length ?? 0) > 0 && this.engines.engineFor(model).conversation?.tools !== true) {
        throw toolsRefusal('session.tools', model);
      }
      return { ok: true, shown: settingsJson({ ...DEFAULT_CONVERSATION_SETTINGS, ...settings }) };
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return { ok: false, refusal: { code: error.code, message: error.message, param: error.param } };
    }
  }
}

/** Provides the check to the client-secrets module, which knows no socket layer. */
@Global()
@Module({
  providers: [{ provide: REALTIME_SESSION_CHECK, useClass: ConversationSecretCheck }],
  exports: [REALTIME_SESSION_CHECK],
})
export class ConversationSecretCheckModule {}

import type { Logger } from '@nestjs/common';
import { sameEngineSettings, type SessionConfig, type SessionStorePort } from '../../session-core/index';
import type { SessionPorts } from './session-ports.factory';
import type { CompatSessionsRepository } from './compat-sessions.repository';

/**
 * The shared database ports, plus recording the engine settings a compatibility client chose
 * (Deepgram query parameters, a Realtime session.update before the first audio) when they differ
 * from what the session row holds, so that GET /v1/sessions/{id} shows what ran.
 */
export function compatPorts(
  ports: SessionPorts,
  stored: SessionConfig,
  repository: CompatSessionsRepository,
  logger: Logger,
): SessionPorts {
  const record = async (sessionId: string, config: SessionConfig): Promise<void> => {
    try {
      await repository.recordEngineSettings(sessionId, config);
    } catch (error) {
      logger.warn({ err: error, sessionId }, 'could not record the session configuration');
    }
  };
  const store: SessionStorePort = {
    activate: async (sessionId, activation) => {
      const result = await ports.store.activate(sessionId, activation);
      if (result.ok && !sameEngineSettings(activation.config, stored)) await record(sessionId, activation.config);
      return result;
    },
    close: (sessionId, closing) => ports.store.close(sessionId, closing),
    reconfigure: record,
  };
  return { store, meter: ports.meter, settle: () => ports.settle() };
}

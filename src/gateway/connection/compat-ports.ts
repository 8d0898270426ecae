import { Logger } from '@nestjs/common';
import { sameEngineSettings, serverVadView, type SessionConfig, type SessionStorePort } from '../../session-core';
import type { SessionPorts } from './session-ports.factory';
import type { EngineSettings, SessionsService } from '../../modules/sessions';

/**
 * The shared database ports, plus recording the engine settings a compatibility client chose
 * (Deepgram query parameters, a Realtime session.update before the first audio) when they differ
 * from what the session row holds, so that GET /v1/sessions/{id} shows what ran.
 */
// Named for the handshake that used to build these ports, so that the log line keeps its context.
const logger = new Logger('CompatAdmission');

export function compatPorts(ports: SessionPorts, stored: SessionConfig, sessions: SessionsService): SessionPorts {
  const record = async (sessionId: string, config: SessionConfig): Promise<void> => {
    try {
      await sessions.recordEngineSettings(sessionId, engineSettingsOf(config));
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

/** The row's spelling (`audio.input`) of the settings a client may change. */
function engineSettingsOf(config: SessionConfig): EngineSettings {
  const td = config.turnDetection;
  return {
    language: config.language,
    turnDetection: td === null ? null : serverVadView(td),
  };
}

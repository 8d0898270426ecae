import { DEFAULT_TRANSCRIPTION_CONFIG } from '../../../session-core';
import type { Dialect } from '../../dialect';
import { wsTransport } from '../../connection/ws-transport';
import { REALTIME_ASYNCAPI } from './realtime.asyncapi';
import { RealtimeConnection } from './realtime.connection';
import { checkRealtimeQuery } from './realtime.query';

/** `/v1/realtime?intent=transcription`: OpenAI Realtime transcription sessions. */
export const REALTIME_DIALECT: Dialect<void> = {
  name: 'realtime',
  path: '/v1/realtime',
  credentials: 'realtime',
  serves: 'transcription',
  query: (req) => checkRealtimeQuery(req.url),
  // The query asks for nothing: the session runs the secret's configuration or the defaults.
  configure: (_query, lock) => lock ?? DEFAULT_TRANSCRIPTION_CONFIG,
  connect: ({ ws, config, runtime, engines, models }) =>
    new RealtimeConnection({
      ...runtime,
      config: config!,
      engine: engines.default,
      transport: wsTransport(ws),
      checkLanguage: (language, param) => models.checkLanguage(config!.model, language, param),
    }),
  asyncapi: REALTIME_ASYNCAPI,
};

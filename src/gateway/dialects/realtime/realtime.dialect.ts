import { DEFAULT_TRANSCRIPTION_CONFIG } from '../../../session-core';
import type { Dialect } from '../../dialect';
import { wsTransport } from '../../connection/ws-transport';
import { REALTIME_ASYNCAPI } from './realtime.asyncapi';
import { RealtimeConnection } from './realtime.connection';
import { REALTIME_CONVERSATION_ASYNCAPI } from './conversation/conversation.asyncapi';
import { conversationConfig, RealtimeConversationConnection } from './conversation/conversation.connection';
import { checkRealtimeQuery, type RealtimeQuery } from './realtime.query';

/**
 * `/v1/realtime`: OpenAI Realtime transcription sessions (`?intent=transcription`, or no query),
 * and conversation sessions (`?model=vendor-voicechat` or an alias of it, or a client secret of a
 * live session).
 */
export const REALTIME_DIALECT: Dialect<RealtimeQuery> = {
  name: 'realtime',
  path: '/v1/realtime',
  credentials: 'realtime',
  serves: 'transcription',
  query: (req, context) => checkRealtimeQuery(req.url, context),
  requested: (query) => ({ type: query.type, model: query.model }),
  // A client secret's configuration wins; the query asks for nothing else.
  configure: (query, lock) =>
    lock ?? (query.type === 'live' ? conversationConfig(query.model) : DEFAULT_TRANSCRIPTION_CONFIG),
  connect: ({ ws, config, query, realtimeSession, runtime, engines, models }) =>
    config!.type === 'live'
      ? new RealtimeConversationConnection({
          ...runtime,
          config: { ...config!, conversation: true },
          engine: engines.for(config!.model),
          transport: wsTransport(ws),
          aliases: query.aliases,
          realtimeSession,
        })
      : new RealtimeConnection({
          ...runtime,
          config: config!,
          engine: engines.default,
          transport: wsTransport(ws),
          checkLanguage: (language, param) => models.checkLanguage(config!.model, language, param),
        }),
  asyncapi: [REALTIME_ASYNCAPI, REALTIME_CONVERSATION_ASYNCAPI],
};

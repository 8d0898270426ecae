import { DEFAULT_TRANSCRIPTION_CONFIG, VOICECHAT } from '../../../engines';
import type { Dialect } from '../../dialect';
import { queryParameter, SERVER_HEADERS, subprotocolPrefix } from '../../handshake/credential-places';
import { wsTransport } from '../../connection/ws-transport';
import { REALTIME_ASYNCAPI } from './realtime.asyncapi';
import { RealtimeConnection } from './realtime.connection';
import { REALTIME_CONVERSATION_ASYNCAPI } from './conversation/conversation.asyncapi';
import { openRealtimeConversation } from './conversation/conversation.connection';
import { conversationConfig } from './conversation/conversation.start';
import { parseConversationFrame } from './conversation/conversation.protocol';
import { parseRealtimeFrame, REALTIME_MAX_MESSAGE_BYTES } from './realtime.protocol';
import { checkRealtimeQuery, type RealtimeQuery } from './realtime.query';

/**
 * `/v1/realtime`: OpenAI Realtime transcription sessions (`?intent=transcription`, or no query),
 * and conversation sessions (`?model=vendor-voicechat` or an alias of it, or a client secret of a
 * live session).
 */
export const REALTIME_DIALECT: Dialect<RealtimeQuery> = {
  name: 'realtime',
  path: '/v1/realtime',
  // OpenAI's browser form: subprotocols `realtime, openai-insecure-api-key.<key>`, answered `realtime`.
  credentials: [
    SERVER_HEADERS,
    subprotocolPrefix('openai-insecure-api-key.', 'realtime', { secretsOnly: true }),
    queryParameter('token'),
  ],
  serves: 'transcription',
  query: (req, context) => checkRealtimeQuery(req.url, context),
  requested: (query) => ({ type: query.type, model: query.model }),
  sideband: (query) => query.callId,
  // A client secret's configuration wins; the query asks for nothing else.
  configure: (query, lock) =>
    lock ?? (query.type === 'live' ? conversationConfig(query.model) : DEFAULT_TRANSCRIPTION_CONFIG),
  connect: ({ ws, config, query, secretConversation, runtime, conversation, engines, models }) =>
    config!.type === 'live'
      ? openRealtimeConversation({
          ...runtime,
          config: { ...config!, conversation: true },
          engine: engines.for(config!.model),
          transport: wsTransport(ws),
          aliases: query.aliases,
          conversationLimits: conversation,
          secretConversation,
        })
      : new RealtimeConnection({
          ...runtime,
          config: config!,
          engine: engines.default,
          transport: wsTransport(ws),
          checkLanguage: (language, param) => models.checkLanguage(config!.model, language, param),
        }),
  // One parser per channel, as its sessions have: the transcription parser refuses the conversation
  // events, and the conversation parser a `transcription` session.update.
  channels: [
    {
      doc: REALTIME_ASYNCAPI,
      accepts: (text) =>
        parseRealtimeFrame(text, false, { maxMessageBytes: REALTIME_MAX_MESSAGE_BYTES }).type !== 'reject',
    },
    {
      doc: REALTIME_CONVERSATION_ASYNCAPI,
      // The documented examples name `gpt-realtime`, the default alias (REALTIME_MODEL_ALIASES).
      accepts: (text) =>
        parseConversationFrame(text, false, {
          maxMessageBytes: REALTIME_MAX_MESSAGE_BYTES,
          model: VOICECHAT,
          aliases: new Map([['gpt-realtime', VOICECHAT]]),
        }).type !== 'reject',
    },
  ],
};

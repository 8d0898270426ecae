/**
 * Conversation sessions of the Realtime-compatible socket (OpenAI Realtime GA, `type: "realtime"`)
 * in the AsyncAPI document: a channel of its own on `/v1/realtime`, told apart from the
 * transcription channel by the upgrade's `model` (its query binding), because the two kinds accept
 * and send different events under the same names (`session.update`, `session.created`, `error`).
 * The conformance test sends every example through parseConversationFrame and validates the frames
 * of a real cascade conversation against these schemas.
 */
import type { SocketDialectDoc } from '../../../../platform/openapi/socket-dialect-doc';
import { openObject, str } from '../../../../platform/openapi/asyncapi-schemas';
import { COMPAT_HANDSHAKE_REFUSALS } from '../../../handshake/handshake-refusals.asyncapi';
import { VOICECHAT } from '../../../../engines';
import { REALTIME_SESSION_ENDS } from '../realtime.asyncapi';
import { CONVERSATION_CLIENT_MESSAGES } from './conversation.client-messages.asyncapi';
import { CONVERSATION_ERROR_CODES, CONVERSATION_SCHEMAS } from './conversation.schemas.asyncapi';
import { CONVERSATION_SERVER_MESSAGES } from './conversation.server-messages.asyncapi';

export { CONVERSATION_ERROR_CODES };

export const REALTIME_CONVERSATION_ASYNCAPI: SocketDialectDoc = {
  id: 'realtime-conversation',
  address: '/v1/realtime',
  title: 'Realtime-compatible socket (conversation)',
  description: [
    `OpenAI Realtime conversation sessions (GA, \`type: "realtime"\`) on \`${VOICECHAT}\`, opened by ` +
      `\`?model=${VOICECHAT}\`, an operator’s alias of it (\`REALTIME_MODEL_ALIASES\`, e.g. \`gpt-realtime\`), or a ` +
      'client secret of a `realtime` session. The `openai` SDK’s `OpenAIRealtimeWS({ model })` and the Agents ' +
      'SDK’s `RealtimeSession` work unchanged; it starts on connect with `session.created`. Same address as the ' +
      'channel `realtime` (transcription sessions): the upgrade’s `model` chooses the kind.',
    '',
    'Refused with `error`: `output_audio_buffer.clear` (WebRTC only: `unsupported_event`), ' +
      '`transcription_session.update` and other event types (`invalid_value`), binary frames (`invalid_event`), ' +
      'audio and image content in items, MCP tools and items, prompt references, `truncation` other than `auto`, ' +
      '`speed` other than 1, `idle_timeout_ms` with semantic_vad (`unsupported_parameter` or `invalid_value`, ' +
      'naming the parameter). An engine that answers spoken turns by itself refuses tools, ' +
      '`interrupt_response: false` and `idle_timeout_ms` (`unsupported_parameter`) and `response.create` ' +
      '(`unsupported_event`).',
    '',
    'Metered in input audio frames as voicechat, and in text tokens for each response the engine is asked for ' +
      '(the upstream’s count, else estimated; a response cut by the session’s end included): ' +
      '`response.done.usage` shows what was billed.',
    '',
    'The sideband: `?call_id=` (a call’s `rtc_…` id or its session’s `sess_…` id; the `openai` SDK’s ' +
      '`OpenAIRealtimeWS({ callID })`) with an API key of the call’s project joins a running call (WebRTC or a ' +
      'phone call) instead of opening a session: it receives the call’s server events from then on but the ' +
      'output audio, and sends its client events but input audio and audio formats (`input_audio_buffer.append` and a ' +
      '`session.update` of `session.audio` formats are refused with ' +
      '`invalid_request_error`). Closing it ends nothing; the call’s end closes it. A client secret is refused ' +
      '(403 `permission_denied`); a call of another project or an ended call is 404 `not_found`. Any instance ' +
      'of the service serves it: one that does not hold the call relays it to the one that does (its ' +
      '`INSTANCE_URL`); without that address the call is 404 `not_found` there, and an owner that does not ' +
      'answer is 503 `call_unreachable`.',
    '',
    'On a call, an `error` answering a client event goes only to the connection that sent it (the caller’s or a ' +
      'sideband’s); the session’s own errors (the engine failing, a limit that ends the call) go to every connection.',
  ].join('\n'),
  query: openObject(
    {},
    {
      model: str(`\`${VOICECHAT}\` or an alias of it in REALTIME_MODEL_ALIASES.`),
      token: str('A client secret (browsers); its `realtime` session opens this channel without `model`.'),
      call_id: str('The sideband: the running call to join (`rtc_…` or its session’s `sess_…`); no `model` then.'),
    },
  ),
  security: ['bearer', 'token', 'api_key', 'client_secret_query', 'realtime_subprotocol'],
  handshakeRefusals: [...COMPAT_HANDSHAKE_REFUSALS, 'permission_denied', 'not_found', 'call_unreachable'],
  errorCodes: CONVERSATION_ERROR_CODES,
  clientMessages: CONVERSATION_CLIENT_MESSAGES,
  serverMessages: CONVERSATION_SERVER_MESSAGES,
  sessionEnds: REALTIME_SESSION_ENDS,
  schemas: CONVERSATION_SCHEMAS,
};

/**
 * Conversation sessions of the Realtime-compatible socket (OpenAI Realtime GA, `type: "realtime"`)
 * in the AsyncAPI document: a channel of its own on `/v1/realtime`, told apart from the
 * transcription channel by the upgrade's `model` (its query binding), because the two kinds accept
 * and send different events under the same names (`session.update`, `session.created`, `error`).
 * The conformance test sends every example through parseConversationFrame and validates the frames
 * of a real cascade conversation against these schemas.
 */
import type { MessageDoc, SocketDialectDoc } from '../../../../platform/openapi/socket-dialect-doc';
import {
  array,
  constant,
  int,
  nullable,
  num,
  object,
  oneOfValues,
  openObject,
  ref,
  str,
  typed,
  type JsonSchema,
} from '../../../../platform/openapi/asyncapi-schemas';
import { COMPAT_HANDSHAKE_REFUSALS } from '../../../handshake/handshake-refusals.asyncapi';
import { TRANSCRIPTION_MODEL, VOICECHAT } from '../../../../engines';
import { VOICE } from '../../../../session-core';
import { clientId, REALTIME_ERROR_CODES, REALTIME_SESSION_ENDS, serverId } from '../realtime.asyncapi';
import { OPENAI_TRANSCRIPTION_MODELS } from '../realtime.session-update';
import { TIMEOUT_TRIGGERED, TURN_DETECTION_SHOWN, TURN_DETECTION_UPDATE } from './conversation.turns.asyncapi';

/**
 * The transcription half's codes but the language check (a conversation's recogniser is not
 * configured per session), and what items, responses and the stricter session.update refuse.
 */
export const CONVERSATION_ERROR_CODES = [
  ...REALTIME_ERROR_CODES.filter((code) => code !== 'invalid_parameter'),
  'unsupported_parameter',
  'string_above_max_length',
  'array_above_max_length',
  'item_not_found',
  'item_already_exists',
  'conversation_already_has_active_response',
  'response_cancel_not_active',
] as const;

const oneOf = (...schemas: JsonSchema[]): JsonSchema => ({ oneOf: schemas });
const pcm24k = object({ type: constant('audio/pcm'), rate: constant(24000) });
const pcmIn = object({ type: constant('audio/pcm') }, { rate: constant(24000) }, 'Only pcm16 mono 24 kHz.');
const transcriptionModels = oneOfValues(
  [TRANSCRIPTION_MODEL, ...OPENAI_TRANSCRIPTION_MODELS],
  `All served by ${TRANSCRIPTION_MODEL} (the Agents SDK names an OpenAI one).`,
);
const maxTokens = oneOf(int(undefined, 1), constant('inf'));
const modalities = oneOf(
  { type: 'array', items: constant('audio'), minItems: 1, maxItems: 1 },
  { type: 'array', items: constant('text'), minItems: 1, maxItems: 1 },
);
const toolChoice = oneOf(
  oneOfValues(['auto', 'none', 'required']),
  object({ type: constant('function'), name: str() }),
);
const tracing = nullable(oneOf(constant('auto'), openObject({})), 'Accepted and shown, no effect.');
const metadata = nullable({ type: 'object', additionalProperties: str(), maxProperties: 16 });
const responseOut = { response_id: str('`resp_<n>`.'), output_index: int(undefined, 0) };
const contentRef = { ...responseOut, item_id: str(), content_index: int(undefined, 0) };

const SCHEMAS: Record<string, JsonSchema> = {
  RealtimeConversationSessionUpdate: object(
    {},
    {
      type: constant('realtime'),
      model: str(`${VOICECHAT} or an alias of it: the session's own model (it cannot change).`),
      instructions: str('The chat model’s system message.'),
      output_modalities: modalities,
      tools: array(ref('RealtimeConversationTool'), 'At most 128; refused by an engine without tools.'),
      tool_choice: toolChoice,
      max_output_tokens: maxTokens,
      tracing,
      prompt: { type: 'null', description: 'Any prompt reference is `unsupported_parameter`.' },
      include: nullable(array(constant('item.input_audio_transcription.logprobs')), 'Accepted, no effect.'),
      truncation: constant('auto', 'Any other is `unsupported_parameter`.'),
      audio: object(
        {},
        {
          input: object(
            {},
            {
              format: nullable(pcmIn),
              noise_reduction: nullable(openObject({}), 'Accepted, not applied.'),
              transcription: nullable(
                object({}, { model: transcriptionModels, language: str(), prompt: str() }),
                'null: no input transcripts.',
              ),
              turn_detection: TURN_DETECTION_UPDATE,
            },
          ),
          output: object(
            {},
            {
              format: nullable(pcmIn),
              voice: constant(VOICE, 'The one voice.'),
              speed: constant(1, 'Any other is `unsupported_parameter`.'),
            },
          ),
        },
      ),
    },
    'GA `type: "realtime"` shape. Only what is present changes. Unknown fields are `unknown_parameter`.',
  ),
  RealtimeConversationTool: object(
    { type: constant('function'), name: str('1 to 64 letters, digits, `_` or `-`; unique.') },
    {
      description: str(),
      parameters: openObject({}, {}, 'A JSON Schema object, passed to the chat model as given.'),
    },
  ),
  RealtimeConversationSession: object({
    type: constant('realtime'),
    object: constant('realtime.session'),
    id: str(),
    // The session's own model (a live client secret's, when one opened it), so not a constant.
    model: str(`The model’s id (\`${VOICECHAT}\`), not the alias the client named.`),
    output_modalities: modalities,
    instructions: str(),
    tools: array(object({ type: constant('function'), name: str(), description: str(), parameters: openObject({}) })),
    tool_choice: toolChoice,
    max_output_tokens: maxTokens,
    tracing,
    prompt: { type: 'null' },
    truncation: constant('auto'),
    include: { type: 'null' },
    audio: object({
      input: object({
        format: pcm24k,
        noise_reduction: { type: 'null' },
        transcription: nullable(object({ model: transcriptionModels })),
        turn_detection: TURN_DETECTION_SHOWN,
      }),
      output: object({ format: pcm24k, voice: constant(VOICE), speed: constant(1) }),
    }),
    expires_at: int('Unix seconds: the session’s own maximum duration.'),
  }),
  RealtimeConversationContentPart: oneOf(
    object({ type: constant('input_text'), text: str() }),
    object({ type: constant('input_audio'), transcript: nullable(str(), 'null until transcribed.') }),
    object({ type: constant('output_text'), text: str() }),
    object({ type: constant('output_audio'), transcript: str() }),
  ),
  RealtimeConversationItem: oneOf(
    object({
      id: str('The client’s, else `item_<session id suffix>_<n>`.'),
      object: constant('realtime.item'),
      type: constant('message'),
      status: oneOfValues(['completed', 'incomplete', 'in_progress']),
      role: oneOfValues(['user', 'assistant', 'system']),
      content: array(ref('RealtimeConversationContentPart')),
    }),
    object({
      id: str(),
      object: constant('realtime.item'),
      type: constant('function_call'),
      status: oneOfValues(['completed', 'incomplete', 'in_progress']),
      call_id: str(),
      name: str(),
      arguments: str('JSON text, as the chat model wrote it.'),
    }),
    object({
      id: str(),
      object: constant('realtime.item'),
      type: constant('function_call_output'),
      status: oneOfValues(['completed', 'incomplete', 'in_progress']),
      call_id: str(),
      output: str(),
    }),
  ),
  RealtimeConversationClientItem: oneOf(
    object(
      {
        type: constant('message'),
        role: oneOfValues(['user', 'assistant', 'system']),
        content: {
          type: 'array',
          minItems: 1,
          maxItems: 32,
          items: oneOf(
            object({ type: oneOfValues(['input_text', 'text']), text: str() }, {}, 'User and system messages.'),
            object({ type: constant('output_text'), text: str() }, {}, 'Assistant messages.'),
            object({ type: constant('output_audio'), transcript: str() }, {}, 'Assistant messages: no audio.'),
          ),
        },
      },
      { id: str('At most 64 characters.'), object: constant('realtime.item'), status: str('Ignored.') },
    ),
    object(
      { type: constant('function_call'), call_id: str(), name: str() },
      { id: str(), object: constant('realtime.item'), status: str('Ignored.'), arguments: str() },
    ),
    object(
      { type: constant('function_call_output'), call_id: str(), output: str() },
      { id: str(), object: constant('realtime.item'), status: str('Ignored.') },
    ),
  ),
  RealtimeConversationResponse: object({
    object: constant('realtime.response'),
    id: str(),
    status: oneOfValues(['in_progress', 'completed', 'cancelled', 'incomplete', 'failed']),
    status_details: nullable(
      object(
        { type: oneOfValues(['cancelled', 'incomplete', 'failed']) },
        {
          reason: str(
            '`client_cancelled`, `turn_detected` (cancelled), `max_output_tokens` (incomplete), or what failed.',
          ),
        },
      ),
      'null while in progress and when completed.',
    ),
    output: array(ref('RealtimeConversationItem')),
    conversation_id: nullable(constant('conv_default'), 'null for `conversation: "none"`.'),
    output_modalities: modalities,
    audio: object({ output: object({ format: pcm24k, voice: constant(VOICE) }) }),
    metadata,
    usage: nullable(
      object({
        total_tokens: int(undefined, 0),
        input_tokens: int(undefined, 0),
        output_tokens: int(undefined, 0),
        input_token_details: object({
          text_tokens: int(undefined, 0),
          audio_tokens: constant(0),
          image_tokens: constant(0),
          cached_tokens: constant(0),
        }),
        output_token_details: object({ text_tokens: int(undefined, 0), audio_tokens: constant(0) }),
      }),
      'null while in progress. The tokens the chat server reported: detail only, billing is input audio frames.',
    ),
  }),
  RealtimeConversationError: object({
    type: oneOfValues(['invalid_request_error', 'server_error']),
    code: oneOfValues(CONVERSATION_ERROR_CODES),
    message: str(),
    param: nullable(str()),
    event_id: nullable(str('The client event’s `event_id`, else null.')),
  }),
};

const itemId = { item_id: str() };

const CLIENT: Record<string, MessageDoc> = {
  'session.update': {
    summary: 'Instructions, tools, output modalities, turn detection, …; answered by `session.updated`.',
    payload: typed('session.update', { session: ref('RealtimeConversationSessionUpdate') }, clientId),
    examples: [
      {
        type: 'session.update',
        event_id: 'u1',
        session: {
          type: 'realtime',
          model: VOICECHAT,
          instructions: 'You are Aria, a concise assistant.',
          output_modalities: ['audio'],
          tools: [
            {
              type: 'function',
              name: 'get_time',
              description: 'The current time',
              parameters: { type: 'object', properties: {} },
            },
          ],
          tool_choice: 'auto',
          tracing: 'auto',
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: 24000 },
              transcription: { model: 'gpt-4o-mini-transcribe' },
              turn_detection: { type: 'semantic_vad', eagerness: 'auto', create_response: true },
            },
            output: { format: { type: 'audio/pcm', rate: 24000 }, voice: VOICE },
          },
        },
      },
    ],
  },
  'input_audio_buffer.append': {
    summary: 'Input audio: base64 pcm16 mono 24 kHz, at most 1 MiB per message. No acknowledgement.',
    payload: typed('input_audio_buffer.append', { audio: str() }, clientId),
    examples: [{ type: 'input_audio_buffer.append', audio: Buffer.alloc(3840).toString('base64') }],
  },
  'input_audio_buffer.commit': {
    summary: 'Ends the user turn now; an empty buffer is `input_audio_buffer_commit_empty`.',
    payload: typed('input_audio_buffer.commit', {}, clientId),
    examples: [{ type: 'input_audio_buffer.commit' }],
  },
  'input_audio_buffer.clear': {
    summary: 'Drops the turn in progress; answered by `input_audio_buffer.cleared`.',
    payload: typed('input_audio_buffer.clear', {}, clientId),
    examples: [{ type: 'input_audio_buffer.clear', event_id: 'clear-1' }],
  },
  'conversation.item.create': {
    summary:
      'Adds an item (text messages, `function_call`, `function_call_output`); answered by ' +
      '`conversation.item.added` and `.done`. Audio and image content, and MCP items, are refused.',
    payload: typed(
      'conversation.item.create',
      { item: ref('RealtimeConversationClientItem') },
      {
        ...clientId,
        previous_item_id: nullable(str(), 'null or `root`: first; left out: last; unknown: `item_not_found`.'),
      },
    ),
    examples: [
      {
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What time is it?' }] },
      },
      {
        type: 'conversation.item.create',
        event_id: 'out-1',
        item: { type: 'function_call_output', call_id: 'call_1', output: '{"time":"12:00"}' },
      },
    ],
  },
  'conversation.item.retrieve': {
    summary: 'Answered by `conversation.item.retrieved`; an unknown item is `item_not_found`.',
    payload: typed('conversation.item.retrieve', itemId, clientId),
    examples: [{ type: 'conversation.item.retrieve', item_id: 'item_1' }],
  },
  'conversation.item.delete': {
    summary: 'Answered by `conversation.item.deleted`; an unknown item is `item_not_found`.',
    payload: typed('conversation.item.delete', itemId, clientId),
    examples: [{ type: 'conversation.item.delete', item_id: 'item_1' }],
  },
  'conversation.item.truncate': {
    summary:
      'What the user heard of an answer: its transcript keeps the words whose audio starts before ' +
      '`audio_end_ms`; answered by `conversation.item.truncated`.',
    payload: typed(
      'conversation.item.truncate',
      {
        ...itemId,
        content_index: int('0..1000', 0),
        audio_end_ms: int('0..86400000', 0),
      },
      clientId,
    ),
    examples: [{ type: 'conversation.item.truncate', item_id: 'item_1', content_index: 0, audio_end_ms: 1200 }],
  },
  'response.create': {
    summary:
      'Asks for an answer (one at a time: `conversation_already_has_active_response`). An engine that ' +
      'answers spoken turns by itself refuses it with `unsupported_event`.',
    payload: typed(
      'response.create',
      {},
      {
        ...clientId,
        response: object(
          {},
          {
            instructions: str(),
            tools: array(ref('RealtimeConversationTool')),
            tool_choice: toolChoice,
            output_modalities: modalities,
            max_output_tokens: maxTokens,
            conversation: oneOfValues(['auto', 'none'], '`none`: out of band, its items not added.'),
            input: {
              type: 'array',
              maxItems: 512,
              items: oneOf(
                ref('RealtimeConversationClientItem'),
                object({ type: constant('item_reference'), id: str() }),
              ),
              description: 'The context instead of the conversation.',
            },
            metadata,
            audio: object({}, { output: object({}, { voice: constant(VOICE), format: pcmIn }) }),
            prompt: { type: 'null', description: 'Any prompt reference is `unsupported_parameter`.' },
          },
        ),
      },
    ),
    examples: [
      { type: 'response.create' },
      {
        type: 'response.create',
        event_id: 'r1',
        response: {
          conversation: 'none',
          instructions: 'Summarise the conversation in one sentence.',
          output_modalities: ['text'],
          metadata: { purpose: 'summary' },
          input: [{ type: 'item_reference', id: 'item_1' }],
        },
      },
    ],
  },
  'response.cancel': {
    summary: 'Ends the active response (`response.done` `cancelled`); none: `response_cancel_not_active`.',
    payload: typed('response.cancel', {}, { ...clientId, response_id: str() }),
    examples: [{ type: 'response.cancel' }, { type: 'response.cancel', response_id: 'resp_1' }],
  },
};

const itemEvent = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, {
    ...serverId,
    previous_item_id: nullable(str(), 'null: the first item.'),
    item: ref('RealtimeConversationItem'),
  }),
});
const outputItem = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, { ...serverId, ...responseOut, item: ref('RealtimeConversationItem') }),
});
const contentPart = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, {
    ...serverId,
    ...contentRef,
    part: oneOf(
      object({ type: constant('audio'), transcript: str() }),
      object({ type: constant('text'), text: str() }),
    ),
  }),
});
const delta = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, { ...serverId, ...contentRef, delta: str() }),
});
const transcript = { item_id: str(), content_index: constant(0) };

const SERVER: Record<string, MessageDoc> = {
  'session.created': {
    summary: 'First message, on connect: the whole session.',
    payload: typed('session.created', { ...serverId, session: ref('RealtimeConversationSession') }),
  },
  'session.updated': {
    summary: 'Answers `session.update` with the whole session.',
    payload: typed('session.updated', { ...serverId, session: ref('RealtimeConversationSession') }),
  },
  'conversation.item.added': itemEvent(
    'conversation.item.added',
    'An item joined the conversation (a client’s, a user turn, a response’s output as it starts).',
  ),
  'conversation.item.done': itemEvent('conversation.item.done', 'An item is complete (a user turn: its transcript).'),
  'conversation.item.retrieved': {
    summary: 'Answers `conversation.item.retrieve`.',
    payload: typed('conversation.item.retrieved', { ...serverId, item: ref('RealtimeConversationItem') }),
  },
  'conversation.item.deleted': {
    summary: 'Answers `conversation.item.delete`.',
    payload: typed('conversation.item.deleted', { ...serverId, ...itemId }),
  },
  'conversation.item.truncated': {
    summary: 'Answers `conversation.item.truncate`; the item is now `incomplete`.',
    payload: typed('conversation.item.truncated', {
      ...serverId,
      ...itemId,
      content_index: int(undefined, 0),
      audio_end_ms: int(undefined, 0),
    }),
  },
  'input_audio_buffer.speech_started': {
    summary:
      'Turn detection heard speech begin; over an answer it cancels that answer (unless `interrupt_response` is false).',
    payload: typed('input_audio_buffer.speech_started', { ...serverId, ...itemId, audio_start_ms: int(undefined, 0) }),
  },
  'input_audio_buffer.speech_stopped': {
    summary: 'Turn detection heard the turn end; `input_audio_buffer.committed` follows.',
    payload: typed('input_audio_buffer.speech_stopped', { ...serverId, ...itemId, audio_end_ms: int(undefined, 0) }),
  },
  'input_audio_buffer.committed': {
    summary: 'A user turn became an item.',
    payload: typed('input_audio_buffer.committed', {
      ...serverId,
      ...itemId,
      previous_item_id: nullable(str(), 'null for the first item.'),
    }),
  },
  'input_audio_buffer.cleared': {
    summary: 'Answers `input_audio_buffer.clear`.',
    payload: typed('input_audio_buffer.cleared', serverId),
  },
  ...TIMEOUT_TRIGGERED,
  'conversation.item.input_audio_transcription.delta': {
    summary: 'Each word of the user turn as the recogniser hears it.',
    payload: typed('conversation.item.input_audio_transcription.delta', { ...serverId, ...transcript, delta: str() }),
  },
  'conversation.item.input_audio_transcription.completed': {
    summary: 'The user turn’s transcript, with its audio duration.',
    payload: typed('conversation.item.input_audio_transcription.completed', {
      ...serverId,
      ...transcript,
      transcript: str(),
      usage: object({ type: constant('duration'), seconds: num() }),
    }),
  },
  'response.created': {
    summary: 'A response started (asked for, or a turn answered on its own with `create_response`).',
    payload: typed('response.created', { ...serverId, response: ref('RealtimeConversationResponse') }),
  },
  'rate_limits.updated': {
    summary:
      'Right after each `response.created`: the limit that binds this socket, its control-message bucket ' +
      '(`requests`; `limit` is `SOCKET_CONTROL_BURST`); tokens are not limited per socket.',
    payload: typed('rate_limits.updated', {
      ...serverId,
      rate_limits: array(
        object({
          name: constant('requests'),
          limit: int(),
          remaining: int(),
          reset_seconds: num('Seconds until the bucket is full again.'),
        }),
      ),
    }),
  },
  'response.output_item.added': outputItem('response.output_item.added', 'An answer or a tool call starts.'),
  'response.output_item.done': outputItem('response.output_item.done', 'An answer or a tool call is complete.'),
  'response.content_part.added': contentPart('response.content_part.added', 'The answer’s audio or text part.'),
  'response.content_part.done': contentPart('response.content_part.done', 'The part, complete.'),
  'response.output_audio.delta': delta(
    'response.output_audio.delta',
    'The voice: base64 pcm16 mono 24 kHz, paced in real time.',
  ),
  'response.output_audio.done': {
    summary: 'The voice is complete.',
    payload: typed('response.output_audio.done', { ...serverId, ...contentRef }),
  },
  'response.output_audio_transcript.delta': delta(
    'response.output_audio_transcript.delta',
    'Each word of a spoken answer, just before its audio.',
  ),
  'response.output_audio_transcript.done': {
    summary: 'The spoken answer’s whole text.',
    payload: typed('response.output_audio_transcript.done', { ...serverId, ...contentRef, transcript: str() }),
  },
  'response.output_text.delta': delta('response.output_text.delta', 'Text of an answer without audio.'),
  'response.output_text.done': {
    summary: 'The text answer, whole.',
    payload: typed('response.output_text.done', { ...serverId, ...contentRef, text: str() }),
  },
  'response.function_call_arguments.delta': {
    summary: 'A tool call’s arguments as the chat model streams them.',
    payload: typed('response.function_call_arguments.delta', {
      ...serverId,
      ...responseOut,
      ...itemId,
      call_id: str(),
      delta: str(),
    }),
  },
  'response.function_call_arguments.done': {
    summary: 'A tool call, complete: run it and send its `function_call_output`, then `response.create`.',
    payload: typed('response.function_call_arguments.done', {
      ...serverId,
      ...responseOut,
      ...itemId,
      call_id: str(),
      name: str(),
      arguments: str(),
    }),
  },
  'response.done': {
    summary: 'The response ended: `completed`, `cancelled`, `incomplete` or `failed`, with the tokens reported.',
    payload: typed('response.done', { ...serverId, response: ref('RealtimeConversationResponse') }),
  },
  error: {
    summary: 'A refused client event (the socket stays open), a failed answer, or why the server ends the session.',
    payload: typed('error', { ...serverId, error: ref('RealtimeConversationError') }),
  },
};

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
    'Metered in input audio frames as voicechat; the tokens in `response.done` are detail only.',
  ].join('\n'),
  query: openObject(
    {},
    {
      model: str(`\`${VOICECHAT}\` or an alias of it in REALTIME_MODEL_ALIASES.`),
      token: str('A client secret (browsers); its `realtime` session opens this channel without `model`.'),
    },
  ),
  security: ['bearer', 'token', 'api_key', 'client_secret_query', 'realtime_subprotocol'],
  handshakeRefusals: COMPAT_HANDSHAKE_REFUSALS,
  errorCodes: CONVERSATION_ERROR_CODES,
  clientMessages: CLIENT,
  serverMessages: SERVER,
  sessionEnds: REALTIME_SESSION_ENDS,
  schemas: SCHEMAS,
};

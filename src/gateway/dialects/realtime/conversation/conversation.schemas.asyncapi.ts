/**
 * The shared schemas of the conversation channel in the AsyncAPI document (conversation.asyncapi.ts):
 * the session, items, responses and the error that both message tables reference, the channel's
 * error codes, and the field schemas the client and server tables reuse.
 */
import {
  array,
  constant,
  int,
  nullable,
  object,
  oneOfValues,
  openObject,
  ref,
  str,
  type JsonSchema,
} from '../../../../platform/openapi/asyncapi-schemas';
import { TRANSCRIPTION_MODEL, VOICECHAT } from '../../../../engines';
import { VOICE } from '../../../../session-core';
import { REALTIME_ERROR_CODES } from '../realtime.asyncapi';
import { OPENAI_TRANSCRIPTION_MODELS } from '../realtime.session-update';
import { TURN_DETECTION_SHOWN, TURN_DETECTION_UPDATE } from './conversation.turns.asyncapi';

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
  'conversation_too_large',
  'context_budget_exceeded',
] as const;

export const oneOf = (...schemas: JsonSchema[]): JsonSchema => ({ oneOf: schemas });
/** G.711 at 8 kHz, for phone bridges (a phone call's session is in audio/pcmu). */
const g711 = object({ type: oneOfValues(['audio/pcmu', 'audio/pcma']) }, { rate: constant(8000) });
const pcm24k = oneOf(object({ type: constant('audio/pcm'), rate: constant(24000) }), g711);
export const pcmIn = oneOf(
  object({ type: constant('audio/pcm') }, { rate: constant(24000) }, 'pcm16 mono 24 kHz.'),
  g711,
);
const transcriptionModels = oneOfValues(
  [TRANSCRIPTION_MODEL, ...OPENAI_TRANSCRIPTION_MODELS],
  `All served by ${TRANSCRIPTION_MODEL} (the Agents SDK names an OpenAI one).`,
);
export const maxTokens = oneOf(int(undefined, 1), constant('inf'));
export const modalities = oneOf(
  { type: 'array', items: constant('audio'), minItems: 1, maxItems: 1 },
  { type: 'array', items: constant('text'), minItems: 1, maxItems: 1 },
);
export const toolChoice = oneOf(
  oneOfValues(['auto', 'none', 'required']),
  object({ type: constant('function'), name: str() }),
);
const tracing = nullable(oneOf(constant('auto'), openObject({})), 'Accepted and shown, no effect.');
export const metadata = nullable({ type: 'object', additionalProperties: str(), maxProperties: 16 });
export const itemId = { item_id: str() };
/** `session.update` and `response.create` both refuse prompt references. */
export const promptRefused: JsonSchema = {
  type: 'null',
  description: 'Any prompt reference is `unsupported_parameter`.',
};

export const CONVERSATION_SCHEMAS: Record<string, JsonSchema> = {
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
      prompt: promptRefused,
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

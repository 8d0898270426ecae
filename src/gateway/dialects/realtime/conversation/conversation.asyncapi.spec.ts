import { schemaProblems } from '../../../../../test/support/json-schema-check';
import { DEFAULT_CONVERSATION_SETTINGS, type ResponseView, type SessionDescriptor } from '../../../../session-core';
import { REALTIME_CONVERSATION_ASYNCAPI } from './conversation.asyncapi';
import { conversationConfig } from './conversation.start';
import { responseJson, sessionJson } from './conversation.render';
import { parseConversationUpdate, type ConversationView } from './conversation.session-update';

/**
 * The shapes the e2e conversation (server_vad, completed and cancelled responses) does not reach:
 * the Agents SDK's semantic_vad session, manual turns, and failed or incomplete responses with
 * usage, rendered by the real renderer and checked against the channel's schemas.
 */
const root = { components: { schemas: REALTIME_CONVERSATION_ASYNCAPI.schemas } };
/** As the frame carries it: JSON leaves out what is undefined. */
const wire = (value: object): object => JSON.parse(JSON.stringify(value));
const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const SESSION: SessionDescriptor = {
  id: 'sess_t1',
  config: conversationConfig('vendor-voicechat'),
  startedAtMs: 1_000,
  expiresAtMs: 121_000,
};
const VIEW: ConversationView = {
  model: 'vendor-voicechat',
  voice: 'aria',
  transcriptionModel: 'vendor-asr-streaming',
  turnDetection: null,
  tracing: null,
};

const updated = (session: object) => {
  const update = parseConversationUpdate(session, 'vendor-voicechat', new Map([['gpt-realtime', 'vendor-voicechat']]));
  return wire(
    sessionJson(SESSION, { ...DEFAULT_CONVERSATION_SETTINGS, ...update.settings }, { ...VIEW, ...update.view }),
  );
};

describe('the realtime-conversation channel of the AsyncAPI document', () => {
  it.each([
    [
      "the Agents SDK's default configuration (semantic_vad, an OpenAI transcription model, tracing)",
      {
        type: 'realtime',
        model: 'gpt-realtime',
        output_modalities: ['audio'],
        tracing: 'auto',
        tool_choice: { type: 'function', name: 'get_time' },
        max_output_tokens: 'inf',
        audio: {
          input: {
            transcription: { model: 'gpt-4o-mini-transcribe' },
            turn_detection: { type: 'semantic_vad', eagerness: 'high', create_response: false },
          },
          output: { voice: 'aria', speed: 1 },
        },
      },
    ],
    [
      'manual turns, text answers, no input transcripts',
      {
        output_modalities: ['text'],
        max_output_tokens: 100,
        tracing: { workflow_name: 'demo' },
        audio: { input: { transcription: null, turn_detection: null } },
      },
    ],
    [
      'server_vad with an idle timeout, answers that the user cannot interrupt',
      {
        audio: {
          input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 8000, interrupt_response: false } },
        },
      },
    ],
    [
      'semantic_vad that the user cannot interrupt, no idle timeout',
      {
        audio: {
          input: { turn_detection: { type: 'semantic_vad', idle_timeout_ms: null, interrupt_response: false } },
        },
      },
    ],
  ])('describes the update, accepted by the parser, and the session of %s', (_name, update) => {
    expect(schemaProblems(update, schema('RealtimeConversationSessionUpdate'), root)).toEqual([]);
    expect(schemaProblems(updated(update), schema('RealtimeConversationSession'), root)).toEqual([]);
  });

  it('documents the idle timeout range the parser takes and the event it triggers', () => {
    const update = (ms: number) => ({ audio: { input: { turn_detection: { idle_timeout_ms: ms } } } });
    expect(schemaProblems(update(4999), schema('RealtimeConversationSessionUpdate'), root)).not.toEqual([]);
    expect(schemaProblems(update(30_001), schema('RealtimeConversationSessionUpdate'), root)).not.toEqual([]);
    expect(REALTIME_CONVERSATION_ASYNCAPI.serverMessages['input_audio_buffer.timeout_triggered']).toBeDefined();
  });

  it('refuses a session the renderer never sends (a field out of its schema fails the check)', () => {
    const session = { ...updated({}), voice: 'aria' };
    expect(schemaProblems(session, schema('RealtimeConversationSession'), root)).toEqual(['$.voice: not documented']);
  });

  const response = (status: ResponseView['status'], reason: string | null): ResponseView => ({
    id: 'resp_1',
    status,
    reason,
    output: [
      {
        id: 'item_1',
        type: 'message',
        role: 'assistant',
        status: 'incomplete',
        content: [{ type: 'output_audio', transcript: 'It is' }],
      },
      { id: 'item_2', type: 'function_call', status: 'completed', callId: 'c1', name: 'get_time', arguments: '{}' },
    ],
    audio: true,
    conversation: 'none',
    metadata: { purpose: 'summary' },
    usage: { inputTokens: 42, outputTokens: 7 },
  });

  it.each([
    ['in_progress', null],
    ['failed', 'engine_unavailable'],
    ['incomplete', 'max_output_tokens'],
    ['cancelled', 'turn_detected'],
    ['cancelled', null],
  ] as const)('describes a response %s (%s)', (status, reason) => {
    expect(
      schemaProblems(wire(responseJson(response(status, reason))), schema('RealtimeConversationResponse'), root),
    ).toEqual([]);
  });
});

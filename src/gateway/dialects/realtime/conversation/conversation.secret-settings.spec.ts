import { conversationTurns, type SecretConversation } from '../../../../session-core';
import { FakeClock } from '../../../../session-core/testing/fake-clock';
import { FakeEngine } from '../../../../session-core/testing/fakes';
import { conversationConfig } from './conversation.start';
import { FakeConnections } from './testing/fake-connections';

class ToolEngine extends FakeEngine {
  readonly conversation = { responses: true, tools: true };
}

/** As the secret stored them (session-core/settings: normalized when it was issued). */
const SECRET_SESSION: SecretConversation = {
  settings: {
    instructions: 'You are Breeze.',
    tools: [{ name: 'get_weather', description: 'The weather', parameters: { type: 'object' } }],
    toolChoice: 'required',
    audio: false,
    maxOutputTokens: 200,
  },
};

/** A client secret's settings on the socket it opens: in session.created, and changeable afterwards. */
describe('a conversation opened with a client secret that carries settings', () => {
  const connections = new FakeConnections();
  afterEach(() => connections.closeAll());

  const open = async (engine: FakeEngine, secretConversation: SecretConversation) => {
    const { transport, send } = connections.open(engine, { secretConversation });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    await settle();
    return { transport, send, settle };
  };

  it('shows them in session.created, and a later session.update changes them', async () => {
    const { transport, send, settle } = await open(new ToolEngine(), SECRET_SESSION);
    expect(transport.types()).toEqual(['session.created']);
    expect((transport.events[0] as any).session).toMatchObject({
      instructions: 'You are Breeze.',
      tools: [{ type: 'function', name: 'get_weather', description: 'The weather', parameters: { type: 'object' } }],
      tool_choice: 'required',
      output_modalities: ['text'],
      max_output_tokens: 200,
    });
    send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be terse.', tools: [] } });
    await settle();
    expect((transport.events.at(-1) as any).session).toMatchObject({
      instructions: 'Be terse.',
      tools: [],
      tool_choice: 'required',
    });
  });

  it('on an engine without tool calls: runs with the rest, and says why the tools were not taken', async () => {
    const { transport } = await open(new FakeEngine(), SECRET_SESSION);
    expect(transport.types()).toEqual(['session.created', 'error']);
    expect((transport.events[0] as any).session).toMatchObject({ instructions: 'You are Breeze.', tools: [] });
    expect((transport.events[1] as any).error).toMatchObject({
      code: 'unsupported_parameter',
      param: 'session.tools',
      message: expect.stringContaining('cannot call tools'),
    });
  });

  it("keeps a secret's create_response: false: a turn the idle timeout commits is not answered", async () => {
    const clock = new FakeClock();
    const config = { ...conversationConfig('vendor-voicechat'), createResponse: false, idleTimeoutMs: 5000 };
    const { connection, transport } = connections.open(new ToolEngine(), { config, clock });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((transport.events[0] as any).session.audio.input.turn_detection).toMatchObject({
      create_response: false,
      idle_timeout_ms: 5000,
    });
    connection.onMessage(
      JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(48 * 1000).toString('base64') }),
      false,
    );
    clock.advance(5000);
    expect(transport.types()).toEqual([
      'session.created',
      'input_audio_buffer.timeout_triggered',
      'input_audio_buffer.committed',
      'conversation.item.added',
      'conversation.item.done',
    ]);
  });

  it('shows the turns the secret asked for, semantic_vad with its eagerness included', async () => {
    const turns = conversationTurns({ type: 'semantic_vad', eagerness: 'high', create_response: false }, 'td');
    const { transport } = await open(new ToolEngine(), { settings: {}, turns });
    expect((transport.events[0] as any).session.audio.input.turn_detection).toEqual({
      type: 'semantic_vad',
      eagerness: 'high',
      create_response: false,
      interrupt_response: true,
    });
  });
});

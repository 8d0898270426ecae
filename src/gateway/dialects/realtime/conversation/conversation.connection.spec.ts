import type { ResponseRequest, ResponseSink } from '../../../../session-core';
import { FakeClock } from '../../../../session-core/testing/fake-clock';
import { FakeEngine, FakeMeter, FakeStore, FakeStream, Gate } from '../../../../session-core/testing/fakes';
import { FakeConnections } from './testing/fake-connections';

/** A cascade-like engine: it takes responses and tools. */
class RespondingEngine extends FakeEngine {
  readonly conversation = { responses: true, tools: true };
  readonly requests: { request: ResponseRequest; sink: ResponseSink; stream: FakeStream }[] = [];
  readonly cancelled: string[] = [];

  override async open(...args: Parameters<FakeEngine['open']>) {
    const stream = (await super.open(...args)) as FakeStream & Record<string, unknown>;
    stream.respond = (request: ResponseRequest, sink: ResponseSink) => this.requests.push({ request, sink, stream });
    stream.cancelResponse = (id: string) => this.cancelled.push(id);
    return stream;
  }
}

const AGENTS_SDK_UPDATE = {
  type: 'session.update',
  session: {
    type: 'realtime',
    instructions: 'You are Breeze.',
    model: 'gpt-realtime-2.1',
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        noise_reduction: null,
        transcription: { model: 'gpt-4o-mini-transcribe' },
        turn_detection: { type: 'semantic_vad' },
      },
      output: { format: { type: 'audio/pcm', rate: 24000 }, speed: 1 },
    },
    tools: [
      {
        type: 'function',
        name: 'get_weather',
        description: 'The weather for a city',
        parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} },
      },
    ],
  },
};

describe('RealtimeConversationConnection (fake engines)', () => {
  const connections = new FakeConnections();
  afterEach(() => connections.closeAll());

  const open = async (engine: FakeEngine, store = new FakeStore(), clock?: FakeClock) => {
    const aliases = new Map([['gpt-realtime-2.1', 'vendor-voicechat']]);
    const { connection, transport, send } = connections.open(engine, { store, aliases, ...(clock && { clock }) });
    // Sent before the session started: kept and handled after session.created.
    send({ ...AGENTS_SDK_UPDATE, event_id: 'u1' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { connection, transport, send, settle: () => new Promise((resolve) => setTimeout(resolve, 20)) };
  };

  it("accepts the Agents SDK's default configuration as it is; semantic_vad becomes the end-of-turn model", async () => {
    const engine = new RespondingEngine();
    const { transport } = await open(engine);
    expect(transport.types().slice(0, 2)).toEqual(['session.created', 'session.updated']);
    const updated = transport.events[1] as any;
    expect(updated.session).toMatchObject({
      type: 'realtime',
      instructions: 'You are Breeze.',
      tools: [{ type: 'function', name: 'get_weather' }],
      audio: { input: { turn_detection: { type: 'semantic_vad', eagerness: 'auto', create_response: true } } },
    });
    // The engine stream was reopened with end-of-turn confidence before any audio.
    expect(engine.streams).toHaveLength(2);
    expect(engine.last.config).toMatchObject({
      conversation: true,
      turnDetection: { endOfTurn: { eotThreshold: 0.7 } },
    });
  });

  it('an engine that answers by itself (the embedded voicechat) refuses tools and response.create clearly', async () => {
    const engine = new FakeEngine();
    const { transport, send, settle } = await open(engine);
    const refusal = transport.events.find((e) => e.type === 'error') as any;
    expect(refusal.error).toMatchObject({ code: 'unsupported_parameter', param: 'session.tools', event_id: 'u1' });
    expect(refusal.error.message).toMatch(/cannot call tools/);
    send({ type: 'session.update', session: { instructions: 'Persona stays.' } });
    send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    });
    send({ type: 'response.create', event_id: 'r1' });
    await settle();
    const errors = transport.events.filter((e) => e.type === 'error') as any[];
    expect(errors.at(-1).error).toMatchObject({ code: 'unsupported_event', event_id: 'r1' });
    expect(transport.types()).toContain('conversation.item.added');
  });

  it('applies nothing of an update whose turn detection change is refused after audio (session_config_locked)', async () => {
    const { transport, send, settle } = await open(new RespondingEngine());
    send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(4800).toString('base64') });
    send({
      type: 'session.update',
      event_id: 'l1',
      session: {
        instructions: 'Refused with its update.',
        audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 900, create_response: false } } },
      },
    });
    await settle();
    expect((transport.events.at(-1) as any).error).toMatchObject({ code: 'session_config_locked', event_id: 'l1' });
    send({ type: 'session.update', session: { tool_choice: 'none' } });
    await settle();
    const shown = (transport.events.at(-1) as any).session;
    expect(shown).toMatchObject({ instructions: 'You are Breeze.', tool_choice: 'none' });
    expect(shown.audio.input.turn_detection).toMatchObject({ type: 'semantic_vad', create_response: true });
  });

  it('refuses interrupt_response: false and idle_timeout_ms with an engine that answers by itself', async () => {
    const { transport, send, settle } = await open(new FakeEngine());
    const vad = (fields: object) => ({ audio: { input: { turn_detection: { type: 'server_vad', ...fields } } } });
    send({ type: 'session.update', event_id: 'i1', session: vad({ interrupt_response: false }) });
    send({ type: 'session.update', event_id: 'i2', session: vad({ idle_timeout_ms: 5000 }) });
    await settle();
    const errors = transport.events.filter((e) => e.type === 'error').map((e: any) => e.error);
    expect(errors.slice(-2)).toMatchObject([
      { code: 'unsupported_parameter', param: 'session.audio.input.turn_detection.interrupt_response', event_id: 'i1' },
      { code: 'unsupported_parameter', param: 'session.audio.input.turn_detection.idle_timeout_ms', event_id: 'i2' },
    ]);
  });

  it('idle_timeout_ms: silence for the timeout after a response brings timeout_triggered, the silent item and a prompt', async () => {
    const clock = new FakeClock();
    const engine = new RespondingEngine();
    const { transport, send, settle } = await open(engine, new FakeStore(), clock);
    send({
      type: 'session.update',
      session: { output_modalities: ['text'], audio: { input: { turn_detection: { idle_timeout_ms: 5000 } } } },
    });
    await settle();
    expect((transport.events.at(-1) as any).session.audio.input.turn_detection).toMatchObject({
      type: 'server_vad',
      idle_timeout_ms: 5000,
      interrupt_response: true,
    });
    send({ type: 'response.create' });
    await settle();
    clock.advance(20_000); // a response that runs is never timed out
    engine.requests[0].sink({ type: 'text', delta: 'Hello.' });
    engine.requests[0].sink({ type: 'finished', status: 'completed', reason: null, usage: null });
    const doneAt = transport.types().lastIndexOf('response.done');
    send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(48 * 1000).toString('base64') });
    clock.advance(4999);
    expect(transport.types().slice(doneAt + 1)).not.toContain('input_audio_buffer.timeout_triggered');
    clock.advance(1);
    const after = transport.events.slice(doneAt + 1) as any[];
    expect(after.map((e) => e.type)).toEqual([
      'input_audio_buffer.timeout_triggered',
      'input_audio_buffer.committed',
      'conversation.item.added',
      'conversation.item.done',
      'response.created',
      'rate_limits.updated',
    ]);
    const [timeout, committed] = after;
    expect(timeout).toEqual({
      type: 'input_audio_buffer.timeout_triggered',
      event_id: expect.any(String),
      item_id: committed.item_id,
      audio_start_ms: 0,
      audio_end_ms: 1000,
    });
    expect(engine.requests).toHaveLength(2);
    expect(engine.requests[1].request.messages.at(-1)).toEqual({
      role: 'user',
      content: '(The user has said nothing for 5 seconds.)',
    });

    // Turned off mid-session (after audio): the prompt's end starts no count.
    send({ type: 'session.update', session: { audio: { input: { turn_detection: { idle_timeout_ms: null } } } } });
    await settle();
    expect((transport.events.at(-1) as any).type).toBe('session.updated');
    engine.requests[1].sink({ type: 'finished', status: 'completed', reason: null, usage: null });
    const count = transport.events.length;
    clock.advance(10_000);
    expect(transport.types().slice(count)).not.toContain('input_audio_buffer.timeout_triggered');
  });

  it('asks the engine for a response with the conversation, and renders its text and tool call', async () => {
    const engine = new RespondingEngine();
    // The control bucket refills on its clock: a still one keeps the allowance asserted below exact.
    const { transport, send, settle } = await open(engine, new FakeStore(), new FakeClock());
    send({ type: 'session.update', session: { output_modalities: ['text'], tool_choice: 'required' } });
    send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
    });
    send({ type: 'response.create', response: { max_output_tokens: 20 } });
    await settle();
    const { request, sink } = engine.requests[0];
    expect(request).toMatchObject({
      instructions: 'You are Breeze.',
      audio: false,
      toolChoice: 'required',
      maxOutputTokens: 20,
      messages: [{ role: 'user', content: 'weather?' }],
    });
    sink({ type: 'function_call', callId: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' });
    sink({ type: 'finished', status: 'completed', reason: null, usage: { inputTokens: 3, outputTokens: 4 } });
    const events = transport.events as any[];
    const added = events.find((e) => e.type === 'response.output_item.added' && e.item.type === 'function_call');
    const done = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call');
    expect(added.item.status).toBe('in_progress');
    expect(done.item).toMatchObject({
      status: 'completed',
      call_id: 'c1',
      arguments: '{"city":"Oslo"}',
      object: 'realtime.item',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'response.done',
      response: { status: 'completed', usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } },
    });
    // Each response's start reports the socket's control-message allowance (default bucket of 200),
    // four messages into it: the update, the item, the response and the Agents SDK's first update.
    const types = events.map((e) => e.type);
    expect(types[types.indexOf('response.created') + 1]).toBe('rate_limits.updated');
    expect(events.find((e) => e.type === 'rate_limits.updated').rate_limits).toEqual([
      { name: 'requests', limit: 200, remaining: 196, reset_seconds: expect.any(Number) },
    ]);
    // Every server event carries its own event_id, numbered in one sequence.
    const ids = events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("meters each response's tokens in the session's meter batches: reported, else estimated", async () => {
    const engine = new RespondingEngine();
    const meter = new FakeMeter();
    const { connection, send } = connections.open(engine, { meter });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    await settle();
    const respond = async () => {
      send({ type: 'response.create', response: { output_modalities: ['text'] } });
      await settle();
    };
    await respond();
    engine.requests[0].sink({ type: 'text', delta: 'a' });
    engine.requests[0].sink({
      type: 'finished',
      status: 'completed',
      reason: null,
      usage: { inputTokens: 10, outputTokens: 2 },
    });
    await respond();
    // No usage reported: estimated as the context budget counts (the first answer "a": 1 + 4 a message).
    engine.requests[1].sink({ type: 'text', delta: 'abcdefgh' });
    engine.requests[1].sink({ type: 'finished', status: 'completed', reason: null, usage: null });
    await connections.close(connection);
    const tokens = meter.written.filter((b) => b.tokens !== undefined).map((b) => b.tokens);
    expect(tokens).toEqual([
      { input: 10, output: 2 },
      { input: 5, output: 2 },
    ]);
    // One sequence with the frames' batches: every seq once, in order.
    expect(meter.written.map((b) => b.seq)).toEqual(meter.written.map((_, i) => i + 1));
  });

  it('holds requests while a turn detection change reopens the engine stream, then serves them in order', async () => {
    const engine = new RespondingEngine();
    const { transport, send, settle } = await open(engine);
    const streams = engine.streams.length;
    send({
      type: 'session.update',
      session: { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 700 } } } },
    });
    send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    });
    send({ type: 'response.create', event_id: 'r1' });
    await settle();
    expect(engine.streams).toHaveLength(streams + 1);
    expect(engine.requests).toHaveLength(1);
    // Asked of the new stream, after session.updated, with nothing refused.
    expect(engine.requests[0].stream).toBe(engine.last);
    expect(transport.events.filter((e) => e.type === 'error')).toEqual([]);
    const types = transport.types();
    expect(types.lastIndexOf('session.updated')).toBeLessThan(types.indexOf('response.created'));
  });

  /** A connection whose engine open waits for the test, with a hold of 4: its start is in flight until `started()`. */
  const starting = () => {
    const engine = new RespondingEngine();
    engine.openGate = new Gate<void>();
    const { connection, transport, send } = connections.open(engine, { tuning: { maxHeldEvents: 4 } });
    return { connection, transport, send, started: () => engine.openGate!.resolve() };
  };

  it('holds items sent before the start in the session hold, and handles them in order after session.created', async () => {
    const { transport, send, started } = starting();
    for (const id of ['item_a', 'item_b', 'item_c']) {
      const content = [{ type: 'input_text', text: id }];
      send({ type: 'conversation.item.create', event_id: id, item: { id, type: 'message', role: 'user', content } });
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(transport.types()).toEqual([]);
    started();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const added = transport.events.filter((e) => e.type === 'conversation.item.added') as any[];
    expect(transport.types()[0]).toBe('session.created');
    expect(added.map((e) => e.item.id)).toEqual(['item_a', 'item_b', 'item_c']);
  });

  it('ends the session (1008) when a client sends more than the hold takes while the start is in flight', async () => {
    const { connection, transport, send, started } = starting();
    for (let i = 0; i < 6; i++) send({ type: 'response.cancel', event_id: `c${i}` });
    started();
    await connection.runtime.done;
    const error = transport.events.find((e) => e.type === 'error') as any;
    expect(error.error).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(transport.closed).toMatchObject({ code: 1008 });
    expect(transport.types()).not.toContain('response.done');
  });

  it("answers an event refused because the session is ending with nothing of its own: the end's error says why", async () => {
    const { connection, transport } = await open(new RespondingEngine());
    const closing = {
      code: 'session_closed',
      message: 'the session is closing',
      param: null,
      origin: 'client' as const,
    };
    const sent = transport.frames.length;
    connection.session.render({ type: 'error', error: closing });
    expect(transport.frames.length).toBe(sent);
    const other = { ...closing, code: 'invalid_value', message: 'bad' };
    connection.session.render({ type: 'error', error: other });
    expect(transport.events.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'invalid_value' },
    });
  });
});

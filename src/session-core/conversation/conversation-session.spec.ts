import type { ResponseRequest, ResponseSink } from '../engine/engine.port';
import type { SessionLimits } from '../model/session.types';
import { FakeClock } from '../testing/fake-clock';
import { FakeEngine, FakeMeter, FakeStore, FakeStream } from '../testing/fakes';
import type {
  ConversationClientEvent,
  ConversationConnection,
  ConversationOutput,
  ConversationRefusals,
} from './conversation-connection';
import { ConversationSession } from './conversation-session';

interface View {
  voice: string;
}

/** An engine that makes responses on request, as the cascade does. */
class RespondingEngine extends FakeEngine {
  readonly conversation = { responses: true, tools: false };
  readonly requests: { request: ResponseRequest; sink: ResponseSink; stream: FakeStream }[] = [];
  readonly cancelled: string[] = [];

  override async open(...args: Parameters<FakeEngine['open']>) {
    const stream = (await super.open(...args)) as FakeStream & Record<string, unknown>;
    stream.respond = (request: ResponseRequest, sink: ResponseSink) => this.requests.push({ request, sink, stream });
    stream.cancelResponse = (responseId: string) => this.cancelled.push(responseId);
    return stream;
  }
}

/** A connection that keeps what it is sent, as a transport other than a socket would render it. */
class FakeConnection implements ConversationConnection<View> {
  readonly outputs: ConversationOutput<View>[] = [];
  closed: { code: number; reason: string } | null = null;
  bufferedAmount = 0;

  send(output: ConversationOutput<View>): void {
    this.outputs.push(output);
  }
  close(code: number, reason: string): void {
    this.closed = { code, reason };
  }
  types(): string[] {
    return this.outputs.map((output) => output.type);
  }
  errors(): string[] {
    return this.outputs.flatMap((output) => (output.type === 'error' ? [output.error.code] : []));
  }
}

const REFUSALS: ConversationRefusals<View> = {
  tools: (where) => ({ code: 'unsupported_parameter', message: 'no tools', param: `${where}.tools` }),
  unservedBySelfAnswering: () => null,
  outputFormat: (asked) => ({ code: 'unsupported_audio_format', message: `not ${asked}`, param: 'response.format' }),
  audioOnControl: () => ({ code: 'invalid_request', message: 'audio comes from the call', param: null }),
  formatOnControl: () => ({ code: 'invalid_request', message: 'formats are the call’s', param: 'session.audio' }),
};

const user = (text: string): ConversationClientEvent<View> => ({
  type: 'item_create',
  item: {
    id: `item_${text}`,
    type: 'message',
    role: 'user',
    status: 'completed',
    content: [{ type: 'input_text', text }],
  },
});

describe('ConversationSession driven by two connections', () => {
  const start = async (limits: Partial<SessionLimits> = {}) => {
    const clock = new FakeClock();
    const engine = new RespondingEngine();
    const store = new FakeStore();
    const meter = new FakeMeter(store.log);
    const session = new ConversationSession<View>({
      sessionId: 'sess_two',
      config: {
        type: 'live',
        model: 'vendor-voicechat',
        voice: 'alloy',
        language: 'en',
        turnDetection: null,
        outputEncoding: 'base64',
      },
      engine,
      store,
      meter,
      clock,
      limits,
      view: { voice: 'alloy' },
      refusals: REFUSALS,
    });
    const media = new FakeConnection();
    const control = new FakeConnection();
    session.attach(media, 'media');
    session.attach(control, 'control');
    await clock.advanceAsync(20);
    return { clock, engine, store, meter, session, media, control };
  };

  it('shows both connections the one conversation; either steers it; only the media connection hears the voice', async () => {
    const { clock, engine, session, media, control } = await start();
    expect(media.types()).toEqual(['session_created']);
    expect(control.types()).toEqual(['session_created']);

    // The server's control connection adds an item and asks for a response; the caller's sees both.
    session.receive(user('hello'), control);
    session.receive({ type: 'response_create', options: { conversation: 'auto' } }, control);
    await clock.advanceAsync(20);
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0].request.messages).toEqual([{ role: 'user', content: 'hello' }]);
    for (const connection of [media, control]) {
      expect(connection.types()).toEqual([
        'session_created',
        'item_added',
        'item_done',
        'response_created',
        'rate_limits',
      ]);
    }

    // The response's voice plays on the media connection; its words and its end reach both.
    const { request, sink, stream } = engine.requests[0];
    sink({ type: 'text', delta: 'Hi there.' });
    stream.sink({ type: 'response_started', itemId: request.itemId });
    stream.sink({ type: 'output_audio', itemId: request.itemId, pcm: Buffer.alloc(3840) });
    stream.sink({ type: 'response_done', itemId: request.itemId, interrupted: false });
    sink({ type: 'finished', status: 'completed', reason: null, usage: null });
    await clock.advanceAsync(300);
    expect(media.types()).toContain('output_audio_delta');
    expect(control.types()).not.toContain('output_audio_delta');
    expect(media.types().at(-1)).toBe('response_done');
    expect(control.types().at(-1)).toBe('response_done');
    expect(control.types().filter((type) => type !== 'output_audio_delta')).toEqual(
      media.types().filter((type) => type !== 'output_audio_delta'),
    );
  });

  it('takes input audio from the media connection only', async () => {
    const { clock, engine, session, media, control } = await start();
    session.receive({ type: 'append', audio: Buffer.alloc(3840) }, control);
    await clock.advanceAsync(20);
    expect(engine.last.pushed).toHaveLength(0);
    expect(control.errors()).toEqual(['invalid_request']);
    expect(media.errors()).toEqual([]);

    session.receive({ type: 'append', audio: Buffer.alloc(3840) }, media);
    await clock.advanceAsync(20);
    expect(engine.last.pushed.length).toBeGreaterThan(0);
  });

  it('goes on when the control connection leaves, and ends when the media connection does', async () => {
    const { clock, store, session, media, control } = await start();
    session.leave(control, true);
    session.receive(user('still here'), media);
    await clock.advanceAsync(20);
    expect(media.types()).toEqual(['session_created', 'item_added', 'item_done']);
    expect(control.types()).toEqual(['session_created']);
    expect(session.runtime.phase).toBe('started');

    // A control connection may join a running session: it sees what is said from then on.
    const late = new FakeConnection();
    session.attach(late, 'control');
    session.receive(user('welcome'), late);
    await clock.advanceAsync(20);
    expect(late.types()).toEqual(['item_added', 'item_done']);

    session.leave(media, true);
    await clock.advanceAsync(20);
    await session.runtime.done;
    expect(store.closings.map(({ closing }) => closing.reason)).toEqual(['close_requested']);
    // Whoever still watches is closed with the session.
    expect(late.closed).toMatchObject({ code: 1000 });
  });

  it('ends every connection with the session when it ends on the server', async () => {
    const { clock, session, media, control } = await start();
    const ended = session.runtime.end({ kind: 'deleted' });
    await clock.advanceAsync(20);
    await ended;
    for (const connection of [media, control]) {
      expect(connection.types().at(-1)).toBe('closed');
      expect(connection.closed).toMatchObject({ code: 1000 });
    }
  });

  it('tells a client’s error to the connection that caused it alone, and the session’s own to every connection', async () => {
    const { clock, engine, session, media, control } = await start();
    // The control connection's faults: a format change it may not make, an item that is not there.
    session.receive({ type: 'session_update', update: { settings: {}, view: {}, audioFormats: {} } }, control);
    session.receive({ type: 'item_retrieve', itemId: 'item_nope', clientEventId: 'evt_c' }, control);
    // The media connection's: an event its parser refused, a cancel with no response running.
    const refused = {
      type: 'reject',
      code: 'invalid_event',
      message: 'bad',
      param: null,
      clientEventId: 'evt_m',
    } as const;
    session.receive(refused, media);
    session.receive({ type: 'response_cancel' }, media);
    await clock.advanceAsync(20);
    expect(control.errors()).toEqual(['invalid_request', 'item_not_found']);
    expect(media.errors()).toEqual(['invalid_event', 'response_cancel_not_active']);
    // Held while the engine stream reopens (a turn detection change), then replayed: still each its own.
    const vad = { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 } as const;
    session.receive({ type: 'session_update', update: { settings: {}, view: {}, turnDetection: vad } }, control);
    session.receive(user('one'), control);
    session.receive(user('one'), media); // the same id again
    expect(engine.streams).toHaveLength(1); // still reopening: both held
    await clock.advanceAsync(20);
    expect(engine.streams).toHaveLength(2);
    expect(media.errors().at(-1)).toBe('item_already_exists');
    expect(control.errors()).toHaveLength(2);

    // The session's own: the engine's failure is everyone's.
    engine.last.sink({ type: 'error', code: 'upstream', message: 'the upstream stumbled' });
    await clock.advanceAsync(20);
    expect(media.errors().at(-1)).toBe('engine_error');
    expect(control.errors().at(-1)).toBe('engine_error');
  });

  it('tells every connection of a broken limit that ends the session, whichever broke it', async () => {
    const { clock, session, media, control } = await start({ controlBurst: 3, controlPerSecond: 0.001 });
    for (let i = 0; i < 4; i++) session.receive({ type: 'item_retrieve', itemId: `item_${i}` }, control);
    await clock.advanceAsync(20);
    await session.runtime.done;
    // Three were the control connection's own refusals; the limit ended the call for both.
    expect(control.errors()).toEqual(['item_not_found', 'item_not_found', 'item_not_found', 'rate_limit_exceeded']);
    expect(media.errors()).toEqual(['rate_limit_exceeded']);
    expect(media.types().at(-1)).toBe('closed');
  });

  describe('bills the response its end cuts before the session is recorded closed', () => {
    const inFlight = async () => {
      const started = await start();
      const { clock, engine, session, media } = started;
      session.receive({ type: 'append', audio: Buffer.alloc(3840 * 2) }, media);
      session.receive(user('x'.repeat(400)), media); // 100 tokens, and 4 for the message
      session.receive({ type: 'response_create', options: { conversation: 'auto' } }, media);
      await clock.advanceAsync(20);
      const { request, sink } = engine.requests[0];
      sink({ type: 'text', delta: 'Hello, wo' }); // 3 tokens
      await clock.advanceAsync(20);
      return { ...started, responseId: request.responseId, sink };
    };
    const cut = (outputs: ConversationOutput<View>[]) =>
      outputs.find((output) => output.type === 'response_done' && output.response.status === 'cancelled');

    it('at a limit: the engine told to stop, the tokens metered before the close, response.done then closed', async () => {
      const { clock, engine, store, meter, session, media, control, responseId } = await inFlight();
      const ended = session.runtime.end({ kind: 'expired' });
      await clock.advanceAsync(20);
      await ended;
      expect(engine.cancelled).toEqual([responseId]);
      expect(meter.written.map((batch) => batch.tokens)).toEqual([undefined, { input: 104, output: 3 }]);
      expect(store.log.slice(-3)).toEqual(['meter:1', 'meter:2', 'close:expired']);
      for (const connection of [media, control]) {
        expect(cut(connection.outputs)).toMatchObject({
          response: { reason: 'session_ended', usage: { inputTokens: 104, outputTokens: 3 } },
        });
        expect(connection.types().slice(-2)).toEqual(['response_done', 'closed']);
      }
    });

    it('at a hang-up: billed the same, and those still watching hear the response end', async () => {
      const { clock, engine, store, meter, session, media, control, responseId, sink } = await inFlight();
      session.leave(media, false);
      await clock.advanceAsync(20);
      // The engine's own end of it, after the session cut it, bills nothing more.
      sink({ type: 'finished', status: 'cancelled', reason: null, usage: { inputTokens: 500, outputTokens: 50 } });
      await clock.advanceAsync(20);
      await session.runtime.done;
      expect(engine.cancelled).toEqual([responseId]);
      const tokens = meter.written.flatMap((batch) => (batch.tokens ? [batch.tokens] : []));
      expect(tokens).toEqual([{ input: 104, output: 3 }]);
      expect(store.log.at(-1)).toBe('close:connection_lost');
      expect(cut(control.outputs)).toMatchObject({ response: { reason: 'session_ended' } });
      expect(cut(media.outputs)).toBeUndefined();
    });
  });

  it('closes a control connection that stops reading, alone', async () => {
    const { clock, session, media, control } = await start();
    control.bufferedAmount = 5 * 1024 * 1024;
    session.receive(user('one'), media);
    await clock.advanceAsync(20);
    expect(control.closed).toMatchObject({ code: 1008 });
    session.receive(user('two'), media);
    await clock.advanceAsync(20);
    expect(control.types()).toEqual(['session_created', 'item_added']);
    expect(media.types().filter((type) => type === 'item_added')).toHaveLength(2);
    expect(session.runtime.phase).toBe('started');
  });

  it('tells a keypress to every connection, in order with what the session said before it', async () => {
    const { clock, session, media, control } = await start();
    session.receive(user('hi'), control);
    session.keypress('7', 1_700_000_000);
    await clock.advanceAsync(20);
    for (const connection of [media, control]) {
      expect(connection.types()).toEqual(['session_created', 'item_added', 'item_done', 'dtmf']);
      expect(connection.outputs.at(-1)).toEqual({ type: 'dtmf', digit: '7', receivedAt: 1_700_000_000 });
    }
  });
});

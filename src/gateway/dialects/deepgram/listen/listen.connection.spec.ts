import type { WebSocket } from 'ws';
import { ScriptedEngine } from '../../../../engines/scripted/scripted.engine';
import { FakeClock, settle } from '../../../../session-core/testing/fake-clock';
import { FakeMeter, FakeStore, FakeTransport } from '../../../../session-core/testing/fakes';
import { ListenConnection, listenTransport } from './listen.connection';
import { parseListenQuery } from './listen.query';
import { DEFAULT_TRANSCRIPTION_CONFIG } from '../../../../engines';

function tone(ms: number): Buffer {
  const samples = (24000 * ms) / 1000;
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), i * 2);
  return pcm;
}

async function setup(query = 'interim_results=true&utterance_end_ms=1000') {
  const clock = new FakeClock();
  const store = new FakeStore();
  const transport = new FakeTransport();
  const connection = new ListenConnection({
    sessionId: 'sess_1',
    config: DEFAULT_TRANSCRIPTION_CONFIG,
    listen: parseListenQuery(`/v1/listen?encoding=linear16&sample_rate=24000&${query}`),
    engine: new ScriptedEngine(),
    store,
    meter: new FakeMeter(store.log),
    transport,
    clock,
  });
  await settle();
  expect(connection.runtime.phase).toBe('started');
  /** Streams audio in 80 ms binary frames, moving the clock along with it. */
  const stream = (pcm: Buffer) => {
    for (let at = 0; at < pcm.length; at += 3840) {
      connection.onMessage(pcm.subarray(at, at + 3840), true);
      clock.advance(80);
    }
  };
  return { clock, store, transport, connection, stream };
}

describe('ListenConnection', () => {
  it('sends nothing on open, transcribes, and ends an utterance after utterance_end_ms of audio', async () => {
    const { transport, stream } = await setup();
    expect(transport.frames).toEqual([]);
    stream(Buffer.concat([tone(800), Buffer.alloc(48 * 1600)]));
    expect(transport.types()).toEqual(['Results', 'Results', 'Results', 'UtteranceEnd']);
    expect(transport.events[2]).toMatchObject({ is_final: true, speech_final: true });
    expect(transport.events[3]).toEqual({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 0.8 });
  });

  it('closes after 10 s without a frame as expired (1011), with Metadata first', async () => {
    const { clock, store, transport, connection } = await setup();
    clock.advance(6000);
    connection.onMessage('{"type":"KeepAlive"}', false);
    clock.advance(9000);
    await settle();
    expect(transport.closed).toBeNull();
    await clock.advanceAsync(1500, 100);
    await connection.runtime.done;
    expect(transport.types()).toEqual(['Metadata']);
    expect(transport.closed).toEqual({ code: 1011, reason: 'idle_timeout' });
    expect(store.closings[0].closing).toMatchObject({ reason: 'expired', detail: 'idle_timeout' });
  });

  it('flushes on CloseStream: the last final result, Metadata, then 1000', async () => {
    const { store, transport, connection, stream } = await setup('');
    stream(tone(400));
    connection.onMessage('{"type":"CloseStream"}', false);
    await connection.runtime.done;
    expect(transport.types()).toEqual(['Results', 'Metadata']);
    expect(transport.events[0]).toMatchObject({ is_final: true, from_finalize: false });
    expect(transport.closed).toEqual({ code: 1000, reason: 'client_requested' });
    expect(store.closings[0].closing).toMatchObject({ reason: 'close_requested', usage: { frames: 5 } });
  });

  it('commits on Finalize and keeps the stream open', async () => {
    const { transport, connection, stream } = await setup('');
    stream(tone(400));
    connection.onMessage('{"type":"Finalize"}', false);
    expect(transport.events).toEqual([
      expect.objectContaining({ type: 'Results', is_final: true, from_finalize: true }),
    ]);
    expect(connection.runtime.phase).toBe('started');
  });

  it('ends the stream (1008, connection_lost) on a text frame it cannot decode', async () => {
    const { store, transport, connection } = await setup();
    connection.onMessage('hello', false);
    await connection.runtime.done;
    expect(transport.types()).toEqual(['Metadata']);
    expect(transport.closed).toEqual({ code: 1008, reason: 'invalid_input' });
    expect(store.closings[0].closing.reason).toBe('connection_lost');
  });

  it.each([
    [1000, 'close_requested'],
    [1001, 'close_requested'],
    [1005, 'close_requested'],
    [1006, 'connection_lost'],
    [1011, 'connection_lost'],
  ])('records a socket closed with %i as %s', async (code, reason) => {
    const { store, connection, stream } = await setup();
    stream(tone(160));
    connection.onClose(code);
    await connection.runtime.done;
    expect(store.closings[0].closing).toMatchObject({ reason, usage: { frames: 2 } });
  });
});

describe('listenTransport', () => {
  function fakeSocket() {
    const calls: unknown[][] = [];
    const ws = {
      OPEN: 1,
      readyState: 1,
      bufferedAmount: 7,
      send: (frame: unknown) => calls.push(['send', frame]),
      close: (code: number, reason: string) => calls.push(['close', code, reason]),
      terminate: () => calls.push(['terminate']),
    };
    return { ws, calls, transport: listenTransport(ws as unknown as WebSocket) };
  }

  it("says Deepgram's reasons: nothing on a normal close, NET-0001 and DATA-0000 on errors", () => {
    const normal = fakeSocket();
    normal.transport.close(1000, 'client_requested');
    expect(normal.calls).toEqual([['close', 1000, '']]);
    const idle = fakeSocket();
    idle.transport.close(1011, 'idle_timeout');
    expect(idle.calls[0][2]).toMatch(/^NET-0001: /);
    const data = fakeSocket();
    data.transport.close(1008, 'invalid_input');
    expect(data.calls[0][2]).toMatch(/^DATA-0000: /);
    expect(Buffer.byteLength(String(data.calls[0][2]))).toBeLessThanOrEqual(123);
  });

  it('terminates a client that stopped reading and sends only while open', () => {
    const { ws, calls, transport } = fakeSocket();
    expect(transport.bufferedAmount).toBe(7);
    transport.send('a');
    ws.readyState = 2;
    transport.send('b');
    transport.close(1008, 'client_not_reading');
    expect(calls).toEqual([['send', 'a'], ['terminate']]);
  });
});

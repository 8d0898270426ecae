import { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import type { LiveServerEvent } from '../../../protocol/live-events.js';
import { connectWithClientSecret, type WebSocketConstructor } from '../live/connect.js';
import { attachPlayback, type PlaybackSink } from './playback.js';

/** A small real server on a socket that speaks the live protocol's events in a scripted order. */
describe('attachPlayback', () => {
  let server: WebSocketServer;
  let url: string;
  let script: LiveServerEvent[];

  beforeEach(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/live/sessions`;
    server.on('connection', (socket) =>
      socket.once('message', () => {
        for (const event of script) socket.send(JSON.stringify(event));
      }),
    );
  });
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  const started = { type: 'session.started', event_id: 'e0', session: { id: 'sess_1' } } as unknown as LiveServerEvent;
  const audio = (samples: number[]): LiveServerEvent => ({
    type: 'session.output_audio.delta',
    item_id: 'item_r',
    delta: Buffer.from(Int16Array.from(samples).buffer).toString('base64'),
    start_ms: 0,
    end_ms: 80,
  });
  const turn = (event: Extract<LiveServerEvent, { type: 'session.turn.event' }>['event']): LiveServerEvent => ({
    type: 'session.turn.event',
    event_id: 'e',
    event,
  });

  /** Records what the session did to the player, in order. */
  const recorder = () => {
    const log: string[] = [];
    let queued = 0;
    const sink: PlaybackSink = {
      get playing() {
        return queued > 0;
      },
      enqueue: (pcm) => {
        queued += pcm.length;
        log.push(`play ${Array.from(pcm).join(',')}`);
      },
      flush: () => {
        queued = 0;
        log.push('flush');
      },
    };
    return { log, sink };
  };

  const run = async (events: LiveServerEvent[]) => {
    script = [started, ...events, turn({ type: 'response_started', item_id: 'end' })];
    const session = await connectWithClientSecret({
      liveUrl: url,
      clientSecret: 'ek_test',
      session: { model: 'vendor-voicechat' },
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    const { log, sink } = recorder();
    attachPlayback(session, sink);
    await new Promise<void>((resolve) =>
      session.on(
        'session.turn.event',
        (e) => e.event.type === 'response_started' && e.event.item_id === 'end' && resolve(),
      ),
    );
    await session.close(100);
    return log;
  };

  it('plays the answer and flushes it the moment the user speaks over it', async () => {
    const log = await run([
      audio([1, 2]),
      audio([3, -4]),
      turn({ type: 'speech_started', item_id: 'item_u', start_ms: 800 }),
      audio([5]),
    ]);
    expect(log).toEqual(['play 1,2', 'play 3,-4', 'flush', 'play 5']);
  });

  it('does not flush when speech starts with nothing playing, and flushes an answer the server cut', async () => {
    const log = await run([
      turn({ type: 'speech_started', item_id: 'item_u', start_ms: 0 }),
      audio([7]),
      turn({ type: 'response_done', item_id: 'item_r', interrupted: false }),
      turn({ type: 'response_done', item_id: 'item_r', interrupted: true }),
    ]);
    expect(log).toEqual(['play 7', 'flush']);
  });
});

/** The bare `ws` relay, alone in its process (the benchmark's baseline). */
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { DEFAULT_SCRIPTED_OPTIONS } from '../../../src/engines/scripted/scripted.options';
import { makeTone } from '../../../src/engines/scripted/scripted.audio';
import { answerStats, watchTimers, type ServerReady } from './child-protocol';
import { RelaySession } from './relay-session';

const PATH = '/v1/live/sessions';

function main(): void {
  watchTimers();
  const { toneHz, durationMs } = DEFAULT_SCRIPTED_OPTIONS.reply;
  const replyPcm = makeTone(toneHz, durationMs, 0.25);
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: PATH, maxPayload: 4 * 1024 * 1024 });
  server.on('connection', (ws) => {
    const session = new RelaySession(ws, replyPcm);
    ws.on('message', (data: Buffer) => session.onMessage(data));
    ws.on('close', () => session.stop());
  });
  server.once('listening', () => {
    answerStats();
    const ready: ServerReady = {
      type: 'ready',
      port: (server.address() as AddressInfo).port,
      path: PATH,
      authorization: 'Bearer relay',
    };
    process.send!(ready);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

main();

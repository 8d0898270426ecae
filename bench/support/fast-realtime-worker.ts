/**
 * A worker that costs next to nothing, for measuring the gateway rather than a model: it speaks
 * the OpenAI Realtime transcription protocol (as Continuum's /v1/realtime does), answers every
 * `input_audio_buffer.append` at once with one `…transcription.delta` and every commit with
 * `…transcription.completed`. The same load generator can therefore talk to it directly or through
 * a gateway, and the difference is what the gateway adds.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

const CREATED = JSON.stringify({ type: 'session.created', session: { id: 'sess_fast', type: 'transcription' } });
const UPDATED = JSON.stringify({ type: 'session.updated' });
const DELTA = JSON.stringify({
  type: 'conversation.item.input_audio_transcription.delta',
  item_id: 'item_w',
  delta: 'w ',
});

export async function startFastWorker(): Promise<number> {
  const server = createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 404).end());
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on('connection', (ws) => {
    let words = 0;
    ws.send(CREATED);
    ws.on('message', (data: Buffer) => {
      // A prefix test, not a parse: the worker must stay far cheaper than what it measures.
      const head = data.toString('latin1', 0, 48);
      if (head.includes('input_audio_buffer.append')) {
        words++;
        ws.send(DELTA);
      } else if (head.includes('input_audio_buffer.commit')) {
        const transcript = 'w '.repeat(words).trim();
        words = 0;
        ws.send(
          JSON.stringify({
            type: 'conversation.item.input_audio_transcription.completed',
            item_id: 'item_w',
            content_index: 0,
            transcript,
          }),
        );
      } else if (head.includes('session.update')) ws.send(UPDATED);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * A chat completions stand-in that counts what it is sent and answers "OK." at once, for attacks and
 * fuzzing: it parses nothing and keeps only each request's body size, so a huge request costs it
 * little and a long run holds no bodies (RecordingServer keeps every body it parsed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingChatServer {
  /** The base URL (`http://127.0.0.1:<port>/v1`). */
  readonly url: string;
  /** Each request's body bytes, in arrival order. */
  readonly requests: number[];
  close(): Promise<void>;
}

export async function startCountingChatServer(): Promise<CountingChatServer> {
  const requests: number[] = [];
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const answer = `${chunk({ role: 'assistant', content: 'OK.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`;
  const server: Server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (part: Buffer) => (bytes += part.length));
    req.on('end', () => {
      requests.push(bytes);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

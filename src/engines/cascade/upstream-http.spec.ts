import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postStream, type UpstreamRequest } from './upstream-http';

/** The streamed POST against a plain server that counts its connections and sees requests closed early. */
describe('postStream', () => {
  let server: Server;
  let url: string;
  let connections = 0;
  const closedEarly: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'audio/pcm' });
        res.write(Buffer.alloc(480));
        // A long answer for /slow: the client stops reading after its first chunk.
        if (req.url === '/slow') setTimeout(() => res.end(Buffer.alloc(480)), 2000).unref();
        else res.end(Buffer.alloc(480));
        res.on('close', () => {
          if (!res.writableFinished) closedEarly.push(req.url ?? '');
        });
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const request = (path: string): UpstreamRequest => ({
    upstream: 'speech',
    url: `${url}${path}`,
    body: { input: 'x' },
    apiKey: null,
    timeoutMs: 5000,
    signal: new AbortController().signal,
  });

  it('keeps the connection for the next request once an answer was read to its end', async () => {
    const before = connections;
    for (let i = 0; i < 3; i++) {
      let bytes = 0;
      for await (const chunk of postStream(request('/fast'))) bytes += chunk.length;
      expect(bytes).toBe(960);
    }
    expect(connections - before).toBe(1);
  });

  it('closes the request when the reader stops early, and the next request still gets through', async () => {
    for await (const _ of postStream(request('/slow'))) break;
    await waitFor(() => closedEarly.includes('/slow'));
    let bytes = 0;
    for await (const chunk of postStream(request('/fast'))) bytes += chunk.length;
    expect(bytes).toBe(960);
  });
});

async function waitFor(test: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

import { ChatClient, type ChatClientOptions } from './chat-client';
import { chatBody, startFakeChatServer, type ChatPlan } from './testing/fake-chat-server';
import type { RecordingServer } from './testing/recording-server';
import { UpstreamError } from './upstream-http';

/** The chat client against a fake OpenAI-compatible server on a real socket. */
describe('ChatClient', () => {
  let server: RecordingServer;
  let plan: ChatPlan;

  beforeAll(async () => {
    server = await startFakeChatServer(() => plan);
  });
  afterAll(() => server.close());

  const client = (over: Partial<ChatClientOptions> = {}) =>
    new ChatClient({
      url: `${server.baseUrl}/chat/completions`,
      model: 'qwen2.5-0.5b-instruct',
      maxTokens: 64,
      temperature: 0.2,
      timeoutMs: 2000,
      apiKey: () => 'sk-upstream-secret',
      ...over,
    });

  const collect = async (c: ChatClient, signal = new AbortController().signal) => {
    const out: string[] = [];
    for await (const delta of c.stream([{ role: 'user', content: 'héllo' }], signal)) out.push(delta);
    return out;
  };

  it('streams the deltas of a reply cut anywhere on the wire, and sends the request the protocol describes', async () => {
    plan = { kind: 'reply', pieces: ['Bon', 'jour ', '👋 à toi.'], splitBytes: 3 };
    expect(await collect(client())).toEqual(['Bon', 'jour ', '👋 à toi.']);
    const request = server.requests.at(-1)!;
    expect(request.headers.authorization).toBe('Bearer sk-upstream-secret');
    expect(chatBody(request)).toEqual({
      model: 'qwen2.5-0.5b-instruct',
      messages: [{ role: 'user', content: 'héllo' }],
      stream: true,
      max_tokens: 64,
      temperature: 0.2,
    });
    expect(request.completed).toBe(true);
  });

  it('sends no authorization header without a key', async () => {
    plan = { kind: 'reply', pieces: ['ok'] };
    await collect(client({ apiKey: () => null }));
    expect(server.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('fails with the status and the error fields of an error answer', async () => {
    plan = { kind: 'error', status: 500, message: 'CUDA out of memory', type: 'server_error', code: 'oom' };
    const error = await collect(client()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ upstream: 'chat', kind: 'http', status: 500 });
    expect((error as Error).message).toBe('HTTP 500: server_error/oom: CUDA out of memory');
    expect((error as Error).message).not.toContain('sk-upstream-secret');
  });

  it('times out a server that never answers, and one that stalls mid-answer, closing the request', async () => {
    for (const stalled of [{ kind: 'hang' }, { kind: 'stall', pieces: ['Hel'] }] as ChatPlan[]) {
      plan = stalled;
      const started = Date.now();
      const error = await collect(client({ timeoutMs: 300 })).catch((e: unknown) => e);
      expect(error).toMatchObject({ upstream: 'chat', kind: 'timeout' });
      expect(Date.now() - started).toBeLessThan(5000);
      await server.waitUntil(() => server.requests.at(-1)!.aborted);
    }
  });

  it('cancels the generation when aborted: the server sees the request closed', async () => {
    plan = { kind: 'reply', pieces: Array.from({ length: 50 }, (_, i) => `w${i} `), delayMs: 50 };
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const delta of client().stream([{ role: 'user', content: 'go' }], controller.signal)) {
        seen.push(delta);
        if (seen.length === 2) controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    await server.waitUntil(() => server.requests.at(-1)!.aborted);
    expect(server.requests.at(-1)!.completed).toBe(false);
    expect(seen).toEqual(['w0 ', 'w1 ']);
  });

  it('fails on an unreachable server and on garbage in the stream', async () => {
    const closed = await startFakeChatServer(() => plan);
    const url = `${closed.baseUrl}/chat/completions`;
    await closed.close();
    await expect(collect(client({ url }))).rejects.toMatchObject({ kind: 'network' });
    plan = { kind: 'reply', pieces: ['ok'] };
    const garbage = await startGarbageServer();
    await expect(collect(client({ url: garbage.url }))).rejects.toMatchObject({ kind: 'protocol' });
    await garbage.close();
  });
});

/** A server whose event stream carries something that is not JSON. */
async function startGarbageServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('data: {not json\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

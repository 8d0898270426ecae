import { SpeechClient, type SpeechClientOptions } from './speech-client';
import { speechDurationMs, startFakeSpeechServer, type SpeechPlan } from './testing/fake-speech-server';
import type { RecordingServer } from './testing/recording-server';

/** The speech client against a fake OpenAI-compatible speech server on a real socket. */
describe('SpeechClient', () => {
  let server: RecordingServer;
  let plan: SpeechPlan;

  beforeAll(async () => {
    server = await startFakeSpeechServer(() => plan);
  });
  afterAll(() => server.close());

  const client = (over: Partial<SpeechClientOptions> = {}) =>
    new SpeechClient({
      url: `${server.baseUrl}/audio/speech`,
      model: 'kokoro',
      voice: 'af_heart',
      speed: 1,
      timeoutMs: 2000,
      apiKey: () => null,
      ...over,
    });

  it('streams the pcm as it is synthesised, re-cut on whole samples', async () => {
    plan = { msPerChar: 50, chunkMs: 100, chunkEveryMs: 20, oddChunks: true };
    const chunks: Buffer[] = [];
    const arrivals: number[] = [];
    for await (const pcm of client().stream('Hello there.', new AbortController().signal)) {
      chunks.push(pcm);
      arrivals.push(Date.now());
    }
    expect(chunks.every((c) => c.length % 2 === 0)).toBe(true);
    const total = Buffer.concat(chunks);
    expect(total.length).toBe((speechDurationMs('Hello there.', 50) * 24_000 * 2) / 1000);
    // The body arrived in several pieces over time, not as one buffer at the end.
    expect(chunks.length).toBeGreaterThan(3);
    expect(server.requests.at(-1)!.body).toEqual({
      model: 'kokoro',
      input: 'Hello there.',
      voice: 'af_heart',
      response_format: 'pcm',
      speed: 1,
    });
  });

  it('fails with the status of an error answer', async () => {
    plan = { msPerChar: 50, chunkMs: 100, chunkEveryMs: 0, failWith: 503 };
    await expect(collect(client())).rejects.toMatchObject({ upstream: 'speech', kind: 'http', status: 503 });
  });

  it('refuses a WAV answer (a server that ignored response_format) rather than play its header', async () => {
    plan = { msPerChar: 50, chunkMs: 100, chunkEveryMs: 0, wav: true };
    await expect(collect(client())).rejects.toMatchObject({ upstream: 'speech', kind: 'protocol' });
  });

  it('closes the request when aborted mid-audio', async () => {
    plan = { msPerChar: 100, chunkMs: 40, chunkEveryMs: 40 };
    const controller = new AbortController();
    let received = 0;
    const reading = (async () => {
      for await (const pcm of client().stream('A long sentence to say slowly.', controller.signal)) {
        received += pcm.length;
        controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    await server.waitUntil(() => server.requests.at(-1)!.aborted);
    // 3 s of audio paced at 40 ms a chunk; the first read may hold several chunks on a loaded machine
    // (one CI run read 120 ms at once), but an abort that did not stop the request reads all of it.
    expect(received).toBeLessThan((3000 * 48) / 2);
  });

  const collect = async (c: SpeechClient) => {
    for await (const _ of c.stream('x', new AbortController().signal));
  };
});

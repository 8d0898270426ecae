/**
 * The file client against a fake OpenAI-compatible transcription server (node:http, multipart read
 * with busboy, as speaches or vLLM read it): what is sent, how answers map, and every failure in the
 * service's own words.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTranscriptionError, type FileTranscriptionRequest } from '../../session-core';
import { FileUpstream } from './file-upstream';
import { startFakeTranscriptionUpstream, type FakeTranscriptionUpstream } from './testing/fake-transcription-upstream';
import type { FileUpstreamSettings } from './file-upstream-settings';

const VERBOSE = {
  task: 'transcribe',
  language: 'english',
  duration: 4.2,
  text: ' Turn off the lights. What time is it?',
  segments: [
    { id: 0, start: 0.5, end: 1.9, text: ' Turn off the lights.', avg_logprob: -0.1 },
    { id: 1, start: 2.4, end: 3.8, text: ' What time is it?', avg_logprob: -0.3 },
  ],
  words: [
    { word: 'Turn', start: 0.5, end: 0.7 },
    { word: 'off', start: 0.7, end: 0.9 },
    { word: 'the', start: 0.9, end: 1.0 },
    { word: 'lights.', start: 1.0, end: 1.9 },
    { word: 'What', start: 2.4, end: 2.6 },
    { word: 'time', start: 2.6, end: 2.9 },
    { word: 'is', start: 2.9, end: 3.1 },
    { word: 'it?', start: 3.1, end: 3.8 },
  ],
};

describe('FileUpstream (OpenAI-compatible /v1/audio/transcriptions)', () => {
  let fake: FakeTranscriptionUpstream;
  let dir: string;
  const logged: string[] = [];
  const logger = { warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m), log: () => undefined };
  const audio = Buffer.from('RIFF....WAVEfmt fake audio bytes');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'file-upstream-'));
    writeFileSync(join(dir, 'audio.wav'), audio);
    fake = await startFakeTranscriptionUpstream();
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    fake.received.length = 0;
    logged.length = 0;
    fake.answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(VERBOSE));
  });

  const upstream = (settings: Partial<FileUpstreamSettings> = {}, key: string | null = 'sk-upstream-secret') =>
    new FileUpstream(
      {
        url: `${fake.baseUrl}/audio/transcriptions`,
        model: 'whisper-large-v3',
        apiKey: { env: 'UNUSED' },
        timeoutMs: 5_000,
        maxBytes: 1024,
        maxConcurrent: 2,
        responseFormat: 'verbose_json',
        ...settings,
      },
      () => key ?? undefined,
      logger,
    );
  const request = (overrides: Partial<FileTranscriptionRequest> = {}): FileTranscriptionRequest => ({
    path: join(dir, 'audio.wav'),
    bytes: audio.length,
    contentType: 'audio/wav',
    fileName: 'audio.wav',
    language: 'en',
    prompt: 'lights, time',
    durationMs: 4200,
    signal: new AbortController().signal,
    ...overrides,
  });

  it('posts the file as multipart with the model, verbose_json, both granularities, language, prompt and the key', async () => {
    const client = upstream();
    const pending = client.transcribe(request());
    expect(client.capacity()).toEqual({ inUse: 1, max: 2 });
    const transcript = await pending;
    expect(client.capacity()).toEqual({ inUse: 0, max: 2 });
    const [got] = fake.received;
    expect(got.headers.authorization).toBe('Bearer sk-upstream-secret');
    expect(got.file).toEqual({ name: 'audio.wav', type: 'audio/wav', bytes: audio });
    expect(got.fields).toEqual([
      ['model', 'whisper-large-v3'],
      ['response_format', 'verbose_json'],
      ['timestamp_granularities[]', 'segment'],
      ['timestamp_granularities[]', 'word'],
      ['language', 'en'],
      ['prompt', 'lights, time'],
    ]);
    expect(transcript.text).toBe('Turn off the lights. What time is it?');
    expect(transcript.segments).toHaveLength(2);
    expect(transcript.segments[0]).toMatchObject({ startMs: 500, endMs: 1900, text: 'Turn off the lights.' });
    expect(transcript.segments[0].confidence).toBeCloseTo(Math.exp(-0.1), 5);
    expect(transcript.segments[0].words.map((w) => w.word)).toEqual(['Turn', 'off', 'the', 'lights.']);
    expect(transcript.segments[1].words[0]).toEqual({ word: 'What', startMs: 2400, endMs: 2600, confidence: 0 });
  });

  it('json: the text as one segment; no language sent for auto, no key when none is configured', async () => {
    fake.answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"hello there"}');
    const transcript = await upstream({ responseFormat: 'json' }, null).transcribe(
      request({ language: 'auto', prompt: null }),
    );
    expect(fake.received[0].headers.authorization).toBeUndefined();
    expect(fake.received[0].fields).toEqual([
      ['model', 'whisper-large-v3'],
      ['response_format', 'json'],
    ]);
    expect(transcript.segments).toEqual([{ startMs: 0, endMs: 4200, text: 'hello there', confidence: 0, words: [] }]);
  });

  it('an upstream error is "unavailable" without its body, address or key; the log gets its message', async () => {
    fake.answer = (res) =>
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":{"message":"CUDA out of memory at /srv/models/whisper"}}');
    const error = await upstream()
      .transcribe(request())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileTranscriptionError);
    expect(error).toMatchObject({ reason: 'unavailable', message: 'the upstream answered HTTP 500' });
    expect(logged.join('\n')).toContain('CUDA out of memory');
    expect(logged.join('\n')).not.toContain('sk-upstream-secret');
  });

  it.each([
    [413, 'too_large'],
    [504, 'timeout'],
    [401, 'unavailable'],
  ])('HTTP %i is %s', async (status, reason) => {
    fake.answer = (res) => res.writeHead(status).end();
    await expect(upstream().transcribe(request())).rejects.toMatchObject({ reason });
  });

  it('no answer within timeoutMs is a timeout', async () => {
    fake.answer = () => undefined; // never answers
    const started = Date.now();
    await expect(upstream({ timeoutMs: 1_000 }).transcribe(request())).rejects.toMatchObject({ reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a file over maxBytes is refused before anything is sent', async () => {
    await expect(upstream({ maxBytes: 10 }).transcribe(request())).rejects.toMatchObject({ reason: 'too_large' });
    expect(fake.received).toEqual([]);
  });

  it.each([
    ['not JSON', '<html>bad gateway</html>'],
    ['no text', '{"segments":[]}'],
    ['a segment without times', '{"text":"a","segments":[{"text":"a"}]}'],
  ])('an unreadable answer (%s) is "unavailable"', async (_case, body) => {
    fake.answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    await expect(upstream().transcribe(request())).rejects.toMatchObject({ reason: 'unavailable' });
  });

  it('an unreachable upstream is "unavailable"; a client that leaves cancels with its own reason', async () => {
    await expect(
      upstream({ url: 'http://127.0.0.1:9/v1/audio/transcriptions' }).transcribe(request()),
    ).rejects.toMatchObject({ reason: 'unavailable' });
    fake.answer = () => undefined;
    const leaving = new AbortController();
    const pending = upstream().transcribe(request({ signal: leaving.signal }));
    setTimeout(() => leaving.abort(new Error('client gone')), 200);
    await expect(pending).rejects.toThrow('client gone');
  });
});

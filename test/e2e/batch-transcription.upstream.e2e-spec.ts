/**
 * Batch transcription through a remote engine that forwards files to an OpenAI-compatible
 * transcription upstream (a fake one here: node:http and busboy, answering as speaches or vLLM do).
 * The clients are the official `openai` SDK and @deepgram/sdk; the service decodes the file itself
 * (its duration bills the session), sends it whole with the upstream's key, maps the answer to each
 * API's shape, and answers an upstream's failure 502 / 504 in its own words. Batch sessions show in
 * the session metrics beside the sockets' ones.
 */
import { DeepgramClient } from '@deepgram/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import {
  startFakeTranscriptionUpstream,
  type FakeTranscriptionUpstream,
  type ReceivedUpload,
} from '../../src/engines/remote/testing/fake-transcription-upstream';
import { audioFile, spokenSentences, type SpokenFile } from '../../src/modules/transcriptions/testing/audio-files';
import { databaseTargets } from '../support/test-database';
import { startTestApp, type TestApp } from '../support/test-app';

/** An upload's fields by name, each with its values in the order sent. */
const fieldsOf = (upload: ReceivedUpload): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const [name, value] of upload.fields) (out[name] ??= []).push(value);
  return out;
};

const ANSWER = {
  task: 'transcribe',
  language: 'english',
  duration: 2.1,
  text: ' Turn off the lights.',
  segments: [{ id: 0, start: 0.4, end: 1.8, text: ' Turn off the lights.', avg_logprob: -0.2 }],
  words: [
    { word: 'Turn', start: 0.4, end: 0.6 },
    { word: 'off', start: 0.6, end: 0.9 },
    { word: 'the', start: 0.9, end: 1.0 },
    { word: 'lights.', start: 1.0, end: 1.8 },
  ],
};

describe('batch transcription forwarded to an OpenAI-compatible upstream', () => {
  let t: TestApp;
  let upstream: FakeTranscriptionUpstream;
  let dir: string;
  let spoken: SpokenFile;

  beforeAll(async () => {
    upstream = await startFakeTranscriptionUpstream();
    const port = upstream.port;
    const engines = {
      engines: {
        asr: {
          kind: 'remote',
          protocol: 'openai-realtime',
          workers: [`ws://127.0.0.1:${port}/v1/realtime`],
          files: {
            url: upstream.baseUrl,
            model: 'whisper-large-v3',
            apiKey: { env: 'WHISPER_API_KEY' },
            timeoutMs: 2000,
          },
        },
        local: { kind: 'scripted' },
      },
      models: { 'vendor-asr-streaming': 'asr', 'vendor-voicechat': 'local' },
    };
    t = await startTestApp(databaseTargets()[0], {
      env: { ENGINES_JSON: JSON.stringify(engines), WHISPER_API_KEY: 'sk-whisper-upstream' },
    });
    dir = mkdtempSync(join(tmpdir(), 'batch-upstream-'));
    spoken = await spokenSentences(['turn off the lights']);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    upstream.received.length = 0;
    upstream.answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ANSWER));
  });

  const openai = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${t.baseUrl}/v1`, maxRetries: 0 });
  const metrics = async () => (await fetch(`${t.baseUrl}/metrics`)).text();
  const sessionsOf = async (apiKey: string) =>
    (await (await fetch(`${t.baseUrl}/v1/sessions`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as {
      data: Array<Record<string, unknown>>;
    };

  it('the openai SDK gets the upstream words in verbose_json; the session is billed by the decoded duration', async () => {
    const { apiKey } = await t.newProject();
    const mp3 = audioFile(spoken.pcm, 'mp3', dir);
    const result = await openai(apiKey).audio.transcriptions.create({
      file: await toFile(mp3, 'voicemail.bin'), // a name that says nothing: the bytes decide
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
      language: 'en',
      prompt: 'lights',
    });
    expect(result.text).toBe('Turn off the lights.');
    expect(result.words?.map((w) => [w.word, w.start, w.end])).toEqual([
      ['Turn', 0.4, 0.6],
      ['off', 0.6, 0.9],
      ['the', 0.9, 1],
      ['lights.', 1, 1.8],
    ]);
    expect(result.segments?.[0]).toMatchObject({ start: 0.4, end: 1.8, text: 'Turn off the lights.' });
    const frames = Math.ceil(spoken.durationMs / 80);
    expect(result.duration).toBeCloseTo(spoken.durationMs / 1000, 1);

    const [sent] = upstream.received;
    expect(sent.headers.authorization).toBe('Bearer sk-whisper-upstream');
    expect(sent.file).toEqual({ name: 'audio.mp3', type: 'audio/mpeg', bytes: mp3 });
    expect(fieldsOf(sent)).toEqual({
      model: ['whisper-large-v3'],
      response_format: ['verbose_json'],
      'timestamp_granularities[]': ['segment', 'word'],
      language: ['en'],
      prompt: ['lights'],
    });

    const sessions = await sessionsOf(apiKey);
    expect(sessions.data).toEqual([
      expect.objectContaining({
        type: 'transcription',
        transport: 'batch',
        status: 'closed',
        close_reason: 'close_requested',
        usage: expect.objectContaining({ frames }),
      }),
    ]);
    const text = await metrics();
    expect(text).toMatch(/continuum_sessions_opened_total\{dialect="transcriptions",model="vendor-asr-streaming"\} 1/);
    expect(text).toMatch(
      /continuum_sessions_closed_total\{dialect="transcriptions",model="vendor-asr-streaming",reason="close_requested"\} 1/,
    );
    expect(text).toMatch(/continuum_sessions_open\{dialect="transcriptions"\} 0/);
  }, 60_000);

  it("Deepgram's prerecorded endpoint: headerless linear16 goes up as WAV, the answer in Deepgram's shape", async () => {
    const { apiKey } = await t.newProject();
    const pcm = Buffer.from(spoken.pcm.buffer, spoken.pcm.byteOffset, spoken.pcm.byteLength);
    // @deepgram/sdk's prerecorded call has no sample_rate: the request it would make, by hand.
    const res = await fetch(`${t.baseUrl}/v1/listen?model=nova-3&encoding=linear16&sample_rate=24000`, {
      method: 'POST',
      headers: { authorization: `Token ${apiKey}`, 'content-type': 'application/octet-stream' },
      body: pcm,
    });
    expect(res.status).toBe(200);
    const response = (await res.json()) as {
      metadata: { request_id: string };
      results: { channels: Array<{ alternatives: Array<{ transcript: string; words: Array<{ word: string }> }> }> };
    };
    const [alternative] = response.results.channels[0].alternatives;
    expect(alternative.transcript).toBe('Turn off the lights.');
    expect(alternative.words).toHaveLength(4);
    expect(upstream.received[0].file!.name).toBe('audio.wav');
    expect(upstream.received[0].file!.bytes.subarray(44)).toEqual(pcm);
    expect(await metrics()).toMatch(
      /continuum_sessions_closed_total\{dialect="listen-prerecorded",model="vendor-asr-streaming",reason="close_requested"\} 1/,
    );
  }, 60_000);

  it("@deepgram/sdk's transcribeFile with an MP3", async () => {
    const { apiKey } = await t.newProject();
    const deepgram = new DeepgramClient({ apiKey, baseUrl: t.baseUrl });
    const response = (await deepgram.listen.v1.media.transcribeFile(audioFile(spoken.pcm, 'mp3', dir), {
      model: 'nova-3',
    })) as unknown as {
      metadata: { request_id: string };
      results: { channels: Array<{ alternatives: Array<{ transcript: string }> }> };
    };
    expect(response.results.channels[0].alternatives[0].transcript).toBe('Turn off the lights.');
    expect((await sessionsOf(apiKey)).data[0].id).toBe(response.metadata.request_id);
  }, 60_000);

  it('an upstream failure is 502 upstream_error, an upstream past its time 504 upstream_timeout: nothing of the upstream shown, nothing billed', async () => {
    const { apiKey } = await t.newProject();
    const wav = audioFile(spoken.pcm, 'wav-24k-mono', dir);
    upstream.answer = (res) =>
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":{"message":"CUDA out of memory in /srv/whisper/model.bin"}}');
    const failed = await openai(apiKey)
      .audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'whisper-1' })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect(failed).toMatchObject({ status: 502, code: 'upstream_error' });
    const said = JSON.stringify((failed as InstanceType<typeof OpenAI.APIError>).error);
    expect(said).not.toMatch(/CUDA|srv|127\.0\.0\.1|sk-whisper/);

    upstream.answer = () => undefined; // never answers
    const late = await openai(apiKey)
      .audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'whisper-1' })
      .catch((e: unknown) => e);
    expect(late).toMatchObject({ status: 504, code: 'upstream_timeout' });

    const sessions = await sessionsOf(apiKey);
    expect(sessions.data).toHaveLength(2);
    for (const session of sessions.data)
      expect(session).toMatchObject({
        status: 'closed',
        close_reason: 'connection_lost',
        usage: expect.objectContaining({ frames: 0 }),
      });
    expect(t.logs.join('\n')).not.toContain('sk-whisper-upstream');
    expect(await metrics()).toMatch(
      /continuum_sessions_closed_total\{dialect="transcriptions",model="vendor-asr-streaming",reason="connection_lost"\} 2/,
    );
  }, 60_000);
});

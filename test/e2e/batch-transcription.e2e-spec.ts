/**
 * Batch transcription with the official clients: the `openai` SDK's `audio.transcriptions.create` in
 * every response format and streamed, @deepgram/sdk's prerecorded `transcribeFile`, LiveKit's OpenAI
 * STT `recognize()` (its non-streaming path), every container ffmpeg makes from flite speech, the
 * refusals, the URL policy, metering that agrees with the session and usage views, and a live socket
 * served while batch work runs. Embedded engine, real database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { DeepgramClient } from '@deepgram/sdk';
import { initializeLogger, stt as lk } from '@livekit/agents';
import { STT as DeepgramSTT } from '@livekit/agents-plugin-deepgram';
import { STT as OpenAISTT } from '@livekit/agents-plugin-openai';
import { AudioFrame, dispose } from '@livekit/rtc-node';
import { normalizeWords, wordEdits } from '../../src/engines/embedded/testing/wer';
import {
  audioFile,
  type Conversion,
  CONVERSIONS,
  spokenSentences,
  type SpokenFile,
} from '../../src/modules/transcriptions/testing/audio-files';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

type Json = any;

const SENTENCES = ['turn off the lights in the kitchen', 'what time is it right now', 'my favorite color is blue'];

/** Word error rate of `heard` against what was said. */
function wer(said: string[], heard: string): number {
  const reference = normalizeWords(said.join(' '));
  return wordEdits(reference, normalizeWords(heard)) / reference.length;
}

describe('batch transcription (POST /v1/audio/transcriptions, POST /v1/listen)', () => {
  let t: TestApp;
  let spoken: SpokenFile;
  let dir: string;
  let wav: Buffer;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '4' } });
    spoken = await spokenSentences(SENTENCES);
    dir = mkdtempSync(join(tmpdir(), 'batch-e2e-'));
    wav = audioFile(spoken.pcm, 'wav-24k-mono', dir);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const openai = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${t.baseUrl}/v1`, maxRetries: 0 });

  const auth = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });
  const get = async (apiKey: string, url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: auth(apiKey) });
    expect(res.statusCode).toBe(200);
    return res;
  };
  const onlySession = async (apiKey: string) => {
    const list = (await get(apiKey, '/v1/sessions')).json().data as Array<{ id: string }>;
    expect(list).toHaveLength(1);
    return (await get(apiKey, `/v1/sessions/${list[0].id}`)).json();
  };
  /** A multipart POST as any client would send it. */
  const postForm = (apiKey: string, fields: Record<string, string | Blob>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    return fetch(`${t.baseUrl}/v1/audio/transcriptions`, { method: 'POST', headers: auth(apiKey), body: form });
  };
  const postListen = (apiKey: string, body: Buffer | Uint8Array, type: string, query = '') =>
    fetch(`${t.baseUrl}/v1/listen${query}`, {
      method: 'POST',
      headers: { authorization: `Token ${apiKey}`, 'content-type': type },
      body,
    });

  describe('the openai SDK', () => {
    it('json: the text, usage by duration, and a closed transcription session billed for it in every usage view', async () => {
      const { apiKey } = await t.newProject();
      const result = await openai(apiKey).audio.transcriptions.create({
        file: await toFile(wav, 'speech.wav'),
        model: 'gpt-4o-transcribe',
      });
      expect(wer(spoken.sentences, result.text)).toBeLessThanOrEqual(0.25);
      const frames = Math.ceil(spoken.durationMs / 80);
      expect(result.usage).toEqual({ type: 'duration', seconds: (frames * 80) / 1000 });
      const row = await onlySession(apiKey);
      expect(row).toMatchObject({
        type: 'transcription',
        model: 'vendor-asr-streaming',
        status: 'closed',
        close_reason: 'close_requested',
        transport: 'batch',
        usage: { frames, seconds: (frames * 80) / 1000 },
      });
      const [day, exported, events] = await Promise.all([
        get(apiKey, '/v1/usage').then((r) => r.json()),
        get(apiKey, '/v1/usage/export').then((r) => r.json()),
        get(apiKey, '/v1/usage/normalized-meter-events').then((r) =>
          r.body
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as { frames: number; session_id: string }),
        ),
      ]);
      const micros = (usd: string) => Math.round(Number(usd) * 1e6);
      expect(micros(row.usage.cost_usd)).toBeGreaterThan(0);
      expect(day.data.reduce((n: number, b: { frames: number }) => n + b.frames, 0)).toBe(frames);
      expect(micros(day.data[0].cost_usd)).toBe(micros(row.usage.cost_usd));
      expect(exported.data).toEqual([expect.objectContaining({ session_id: row.id, frames })]);
      expect(events).toEqual([expect.objectContaining({ session_id: row.id, frames })]);
    }, 60_000);

    it('text, srt, vtt and verbose_json with word and segment timestamps', async () => {
      const { apiKey } = await t.newProject();
      const client = openai(apiKey);
      const file = async () => toFile(wav, 'speech.wav');
      const [text, srt, vtt, verbose] = await Promise.all([
        client.audio.transcriptions.create({ file: await file(), model: 'whisper-1', response_format: 'text' }),
        client.audio.transcriptions.create({ file: await file(), model: 'whisper-1', response_format: 'srt' }),
        client.audio.transcriptions.create({ file: await file(), model: 'whisper-1', response_format: 'vtt' }),
        client.audio.transcriptions.create({
          file: await file(),
          model: 'whisper-1',
          response_format: 'verbose_json',
          timestamp_granularities: ['word', 'segment'],
          language: 'en',
        }),
      ]);
      expect(typeof text).toBe('string');
      expect(wer(spoken.sentences, text as unknown as string)).toBeLessThanOrEqual(0.25);
      expect(srt).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n\S/);
      expect(vtt).toMatch(/^WEBVTT\n\n\d\d:\d\d:\d\d\.\d{3} --> /);
      expect(verbose).toMatchObject({ task: 'transcribe', language: 'english' });
      expect(verbose.duration).toBeCloseTo(spoken.durationMs / 1000, 2);
      // One segment per spoken sentence (the pauses end turns), in order, inside the audio.
      expect(verbose.segments!.length).toBe(SENTENCES.length);
      const words = verbose.words!;
      expect(words.length).toBeGreaterThanOrEqual(12);
      for (let i = 1; i < words.length; i++) expect(words[i].start).toBeGreaterThanOrEqual(words[i - 1].start);
      expect(words.at(-1)!.end).toBeLessThanOrEqual(verbose.duration);
      expect(wer(spoken.sentences, verbose.segments!.map((s) => s.text).join(' '))).toBeLessThanOrEqual(0.25);
    }, 90_000);

    it('stream=true: a delta per segment, then one done with the whole text', async () => {
      const { apiKey } = await t.newProject();
      const stream = await openai(apiKey).audio.transcriptions.create({
        file: await toFile(wav, 'speech.wav'),
        model: 'gpt-4o-mini-transcribe',
        stream: true,
      });
      const events: Array<{ type: string; delta?: string; text?: string }> = [];
      for await (const event of stream) events.push(event);
      const done = events.at(-1)!;
      expect(done.type).toBe('transcript.text.done');
      const deltas = events.slice(0, -1);
      expect(deltas.length).toBeGreaterThanOrEqual(1);
      expect(deltas.every((e) => e.type === 'transcript.text.delta')).toBe(true);
      expect(
        deltas
          .map((e) => e.delta)
          .join('')
          .trim(),
      ).toBe(done.text);
      expect(wer(spoken.sentences, done.text!)).toBeLessThanOrEqual(0.25);
    }, 60_000);
  });

  describe('every container, recognised from its bytes whatever its name', () => {
    it.each(Object.keys(CONVERSIONS) as Conversion[])(
      '%s',
      async (conversion) => {
        const { apiKey } = await t.newProject();
        const bytes = audioFile(spoken.pcm, conversion, dir);
        const result = await openai(apiKey).audio.transcriptions.create({
          file: await toFile(bytes, 'upload.bin'),
          model: 'whisper-1',
        });
        expect(wer(spoken.sentences, result.text)).toBeLessThanOrEqual(0.3);
        // Billed for the audio, whatever its container's padding: within a frame or two of the source.
        expect(Math.abs((result.usage as { seconds: number }).seconds - spoken.durationMs / 1000)).toBeLessThan(0.2);
      },
      60_000,
    );
  });

  describe('the Deepgram prerecorded endpoint', () => {
    it("@deepgram/sdk's transcribeFile: request_id is the session id, with duration, words and utterances", async () => {
      const { apiKey } = await t.newProject();
      const deepgram = new DeepgramClient({ apiKey, baseUrl: t.baseUrl });
      const response = (await deepgram.listen.v1.media.transcribeFile(audioFile(spoken.pcm, 'mp3', dir), {
        model: 'nova-3',
        punctuate: true,
        utterances: true,
        language: 'en',
      })) as unknown as {
        metadata: { request_id: string; duration: number; channels: number; sha256: string };
        results: {
          channels: Array<{
            alternatives: Array<{
              transcript: string;
              confidence: number;
              words: Array<{ word: string; start: number; end: number; punctuated_word?: string }>;
            }>;
          }>;
          utterances: Array<{ transcript: string }>;
        };
      };
      const row = await onlySession(apiKey);
      expect(response.metadata.request_id).toBe(row.id);
      expect(response.metadata.channels).toBe(1);
      expect(response.metadata.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(Math.abs(response.metadata.duration - spoken.durationMs / 1000)).toBeLessThan(0.2);
      const [alternative] = response.results.channels[0].alternatives;
      expect(wer(spoken.sentences, alternative.transcript)).toBeLessThanOrEqual(0.3);
      expect(alternative.confidence).toBeGreaterThan(0);
      expect(alternative.words[0].punctuated_word).toMatch(/^[A-Z]/);
      expect(response.results.utterances).toHaveLength(SENTENCES.length);
      expect(row).toMatchObject({ type: 'transcription', status: 'closed' });
    }, 60_000);

    it('headerless linear16 with encoding and sample_rate', async () => {
      const { apiKey } = await t.newProject();
      const raw = Buffer.from(spoken.pcm.buffer, spoken.pcm.byteOffset, spoken.pcm.byteLength);
      const res = await postListen(apiKey, raw, 'application/octet-stream', '?encoding=linear16&sample_rate=24000');
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(res.headers.get('dg-request-id')).toBe(body.metadata.request_id);
      expect(wer(spoken.sentences, body.results.channels[0].alternatives[0].transcript)).toBeLessThanOrEqual(0.25);
    }, 60_000);
  });

  describe('LiveKit Agents, standalone recognize()', () => {
    beforeAll(() => initializeLogger({ pretty: false, level: 'warn' }));
    afterAll(() => dispose());

    const frame = (pcm: Int16Array) => new AudioFrame(pcm, 24_000, 1, pcm.length);

    it("the OpenAI plugin's non-streaming STT (useRealtime: false) and the Deepgram plugin's recognize()", async () => {
      const { apiKey } = await t.newProject();
      const openaiStt = new OpenAISTT({
        apiKey,
        baseURL: `${t.baseUrl}/v1`,
        model: 'whisper-1',
        language: 'en',
        useRealtime: false,
      });
      const heard = await openaiStt.recognize(frame(spoken.pcm) as never);
      expect(heard.type).toBe(lk.SpeechEventType.FINAL_TRANSCRIPT);
      expect(wer(spoken.sentences, heard.alternatives![0].text)).toBeLessThanOrEqual(0.25);
      const deepgramStt = new DeepgramSTT({ apiKey, baseUrl: t.baseUrl, model: 'nova-3', language: 'en-US' });
      const dg = await deepgramStt.recognize(frame(spoken.pcm) as never);
      expect(dg.type).toBe(lk.SpeechEventType.FINAL_TRANSCRIPT);
      expect(wer(spoken.sentences, dg.alternatives![0].text)).toBeLessThanOrEqual(0.3);
      const sessions = (await get(apiKey, '/v1/sessions')).json().data as Array<{ type: string; status: string }>;
      expect(sessions.map((x) => [x.type, x.status])).toEqual([
        ['transcription', 'closed'],
        ['transcription', 'closed'],
      ]);
    }, 60_000);
  });

  describe('batch work beside a live session', () => {
    it('a live Deepgram socket opened while a long file is transcribed gets its stream and its transcript', async () => {
      const { apiKey } = await t.newProject();
      const long = await spokenSentences(SENTENCES, 40_000);
      const longWav = audioFile(long.pcm, 'wav-24k-mono', dir);
      const batch = openai(apiKey).audio.transcriptions.create({
        file: await toFile(longWav, 'long.wav'),
        model: 'whisper-1',
      });
      // The batch runs in the embedded engine's batch process: none of the live engine's 4 streams is taken.
      await new Promise((r) => setTimeout(r, 1500));
      const scraped = await (await fetch(`${t.baseUrl}/metrics`)).text();
      expect(scraped).toMatch(/continuum_sessions_open\{dialect="transcriptions"\} 1/);
      expect(scraped).toMatch(/continuum_engine_streams_in_use\{engine="embedded"\} 0/);
      const deepgram = new DeepgramClient({ apiKey, baseUrl: t.baseUrl.replace('http', 'ws') });
      const connection = await deepgram.listen.v1.connect({
        model: 'nova-3',
        encoding: 'linear16',
        sample_rate: 24000,
        reconnectAttempts: 0,
      });
      const finals: string[] = [];
      const errors: unknown[] = [];
      connection.on('message', (m) => {
        const message = m as {
          type: string;
          is_final?: boolean;
          channel?: { alternatives: Array<{ transcript: string }> };
        };
        if (message.type === 'Results' && message.is_final) finals.push(message.channel!.alternatives[0].transcript);
      });
      connection.on('error', (e) => errors.push(e));
      connection.connect();
      await connection.waitForOpen();
      const utterance = spoken.pcm.subarray(0, Math.round(24 * 3500));
      const bytes = Buffer.from(utterance.buffer, utterance.byteOffset, utterance.byteLength);
      for (let at = 0; at < bytes.length; at += 3840) {
        connection.sendMedia(bytes.subarray(at, at + 3840));
        await new Promise((r) => setTimeout(r, 80));
      }
      connection.sendFinalize({ type: 'Finalize' });
      const deadline = Date.now() + 15_000;
      while (!finals.some((f) => f.trim() !== '') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      connection.sendCloseStream({ type: 'CloseStream' });
      expect(errors).toEqual([]);
      expect(wer([SENTENCES[0]], finals.join(' '))).toBeLessThanOrEqual(0.3);
      const result = await batch;
      expect(wer(long.sentences, result.text)).toBeLessThanOrEqual(0.3);
    }, 120_000);
  });

  describe('refusals', () => {
    it.each([
      ['an empty file', Buffer.alloc(0), 400, 'The file is empty'],
      ['text', Buffer.from('this is not audio at all, just words in a file'), 400, 'not audio'],
      ['a WAV header and nothing else', Buffer.from('RIFF\0\0\0\0WAVEfmt '), 400, 'could not be decoded'],
      [
        'an MP3 cut to its first 200 bytes of noise',
        Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(196, 0x55)]),
        400,
        'could not be decoded',
      ],
    ])(
      '%s: refused, and no session',
      async (_what, bytes, status, message) => {
        const { apiKey } = await t.newProject();
        const res = await postForm(apiKey, { file: new Blob([bytes]), model: 'whisper-1' });
        expect(res.status).toBe(status);
        const { error } = (await res.json()) as Json;
        expect(error).toMatchObject({ code: 'invalid_request', param: 'file' });
        expect(error.message).toContain(message);
        expect((await get(apiKey, '/v1/sessions')).json().data).toEqual([]);
      },
      30_000,
    );

    it('over 25 MB is 413 on both routes; another route keeps its 1 MiB limit', async () => {
      const { apiKey } = await t.newProject();
      const big = new Uint8Array(25 * 1024 * 1024 + 1);
      const form = await postForm(apiKey, { file: new Blob([big]), model: 'whisper-1' });
      expect(form.status).toBe(413);
      expect(((await form.json()) as Json).error.code).toBe('payload_too_large');
      const raw = await postListen(apiKey, big, 'audio/wav');
      expect(raw.status).toBe(413);
      const other = await fetch(`${t.baseUrl}/v1/realtime/client_secrets`, {
        method: 'POST',
        headers: { ...auth(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) }),
      });
      expect(other.status).toBe(413);
      const audioElsewhere = await fetch(`${t.baseUrl}/v1/realtime/client_secrets`, {
        method: 'POST',
        headers: { ...auth(apiKey), 'content-type': 'audio/wav' },
        body: wav,
      });
      expect(audioElsewhere.status).toBe(415);
    }, 60_000);

    it('bad fields, a missing file, a client secret and no key', async () => {
      const { apiKey } = await t.newProject();
      const cases: Array<[Record<string, string | Blob>, string]> = [
        [{ file: new Blob([wav]), model: 'dall-e-3' }, 'model'],
        [{ file: new Blob([wav]), response_format: 'xml' }, 'response_format'],
        [{ file: new Blob([wav]), stream: 'true', response_format: 'srt' }, 'stream'],
        [{ model: 'whisper-1' }, 'file'],
        [{ file: new Blob([wav]), language: 'fr' }, 'language'],
      ];
      for (const [fields, param] of cases) {
        const res = await postForm(apiKey, fields);
        expect([res.status, ((await res.json()) as Json).error.param]).toEqual([400, param]);
      }
      expect((await postListen(apiKey, wav, 'audio/wav', '?callback=https://example.com/x')).status).toBe(400);
      const secret = await fetch(`${t.baseUrl}/v1/realtime/client_secrets`, {
        method: 'POST',
        headers: { ...auth(apiKey), 'content-type': 'application/json' },
        body: '{}',
      }).then((r) => r.json() as Promise<Json>);
      const bySecret = await postForm(secret.value, { file: new Blob([wav]) });
      // REST takes API keys only: a client secret is refused as it is on every route.
      expect(bySecret.status).toBe(403);
      const none = await fetch(`${t.baseUrl}/v1/listen`, {
        method: 'POST',
        headers: { 'content-type': 'audio/wav' },
        body: wav,
      });
      expect(none.status).toBe(401);
    }, 60_000);
  });

  describe('URL bodies', () => {
    let server: Server;
    let url: string;

    beforeAll(async () => {
      server = createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.end(wav);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/speech.wav`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    const fetchUrl = async (app: TestApp, apiKey: string, target: string) => {
      const res = await fetch(`${app.baseUrl}/v1/listen`, {
        method: 'POST',
        headers: { authorization: `Token ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: target }),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };

    it('are off unless the operator allows hosts', async () => {
      const { apiKey } = await t.newProject();
      const res = await fetchUrl(t, apiKey, url);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
      expect(res.body.error.message).toContain('does not fetch audio from URLs');
    });

    it('an allowed host on a private address is refused unless private addresses are allowed; link-local never', async () => {
      const strict = await startTestApp(databaseTargets()[0], {
        env: {
          SPEECH_ENGINE: 'embedded',
          ENGINE_MAX_STREAMS: '1',
          TRANSCRIPTION_URL_HOSTS: '127.0.0.1,localhost,169.254.169.254',
        },
      });
      const open = await startTestApp(databaseTargets()[0], {
        env: {
          SPEECH_ENGINE: 'embedded',
          ENGINE_MAX_STREAMS: '1',
          TRANSCRIPTION_URL_HOSTS: '127.0.0.1,169.254.169.254',
          TRANSCRIPTION_URL_ALLOW_PRIVATE: 'true',
        },
      });
      try {
        const strictKey = (await strict.newProject()).apiKey;
        for (const target of [url, url.replace('127.0.0.1', 'localhost')]) {
          const res = await fetchUrl(strict, strictKey, target);
          expect(res.status).toBe(400);
          expect(res.body.error.message).toContain('private or link-local');
        }
        expect((await fetchUrl(strict, strictKey, 'http://example.com/a.wav')).body.error.message).toContain(
          'not one this service fetches',
        );
        const openKey = (await open.newProject()).apiKey;
        const fetched = await fetchUrl(open, openKey, url);
        expect(fetched.status).toBe(200);
        expect(wer(spoken.sentences, fetched.body.results.channels[0].alternatives[0].transcript)).toBeLessThanOrEqual(
          0.25,
        );
        const metadata = await fetchUrl(open, openKey, 'http://169.254.169.254/latest/meta-data');
        expect(metadata.status).toBe(400);
        expect(metadata.body.error.message).toContain('private or link-local');
      } finally {
        await Promise.all([strict.close(), open.close()]);
      }
    }, 120_000);
  });
});

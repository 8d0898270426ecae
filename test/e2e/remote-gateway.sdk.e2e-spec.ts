/**
 * A gateway tier in front of a worker tier, both Continuum: the worker is a separate process with
 * the embedded engine; the gateway serves `vendor-asr-streaming` through a remote engine speaking
 * the OpenAI Realtime protocol to the worker's /v1/realtime. The official `openai` and
 * `@deepgram/sdk` clients talk to the gateway only and get real transcripts of flite speech; the
 * gateway bills the audio it was sent.
 */
import { DeepgramClient } from '@deepgram/sdk';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { chunks, sleep } from '../support/audio';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { startWorkerProcess, WorkerProcess } from '../support/worker-processes';
import { fetchTrusting, pemPair, wordsHeard } from '../support/tls-and-words';

const REFERENCES = ['the quick brown fox jumped over the lazy dog', 'turn off the lights in the kitchen'];

function gatewayEngines(workerUrls: string[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    engines: {
      workers: {
        kind: 'remote',
        protocol: 'openai-realtime',
        workers: workerUrls,
        apiKey: { env: 'WORKER_API_KEY' },
        languages: ['en'],
        ...extra,
      },
      local: { kind: 'scripted' },
    },
    models: { 'vendor-asr-streaming': 'workers', 'vendor-voicechat': 'local' },
  });
}

describe('a Continuum gateway in front of a Continuum worker process', () => {
  const target = databaseTargets()[0];
  let worker: WorkerProcess;
  let tlsGateway: TestApp;
  let gateway: TestApp;
  let dir: string;
  let ca: Buffer;
  /** Two sentences with silence around them, padded to whole 80 ms frames. */
  let speech: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'continuum-gw-'));
    const pems = pemPair(dir);
    ca = readFileSync(pems.cert);
    worker = await startWorkerProcess(target);
    const env = { ENGINES_JSON: gatewayEngines([worker.realtimeUrl]), WORKER_API_KEY: worker.apiKey };
    tlsGateway = await startTestApp(target, { env: { ...env, TLS_CERT_FILE: pems.cert, TLS_KEY_FILE: pems.key } });
    gateway = await startTestApp(target, { env });
    const spoken = await fliteUtterances('awb', REFERENCES);
    const parts = [silence(400)];
    for (const u of spoken) parts.push(toSessionAudio(u.clip), silence(1200));
    const joined = concatAudio(parts);
    const frames = Math.ceil(joined.length / 1920);
    const padded = new Int16Array(frames * 1920);
    padded.set(joined);
    speech = Buffer.from(padded.buffer);
  }, 300_000); // the worker process compiles the service under ts-node first: minutes on a busy 2-core CI machine

  afterAll(async () => {
    await tlsGateway?.close();
    await gateway?.close();
    await worker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function sessionOf(t: TestApp, apiKey: string, id: string): Promise<any> {
    for (let i = 0; i < 100; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/sessions/${id}`,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const body = res.json();
      if (body.status === 'closed') return body;
      await sleep(100);
    }
    throw new Error('session did not close');
  }

  it('shows the model served by the worker tier with its capacity and languages', async () => {
    const { apiKey } = await gateway.newProject();
    const res = await gateway.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const asr = res.json().data.find((m: any) => m.id === 'vendor-asr-streaming');
    expect(asr).toMatchObject({ capacity: { streams_in_use: 0, streams_max: 32 }, languages: ['en'] });
    // The worker's key never shows, and never reaches the gateway's logs.
    expect(res.body).not.toContain(worker.apiKey);
    expect(gateway.logs.join('')).not.toContain(worker.apiKey);
  });

  it('transcribes flite speech for the openai SDK (realtime, server VAD) and bills the audio once', async () => {
    const { apiKey } = await tlsGateway.newProject();
    const server = new OpenAI({ apiKey, baseURL: `${tlsGateway.baseUrl}/v1`, fetch: fetchTrusting(ca) });
    const secret = await server.realtime.clientSecrets.create({
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'vendor-asr-streaming' as 'whisper-1', language: 'en' },
            turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
          },
        },
      },
    });
    const sessionId = (secret.session as { id: string }).id;
    const browser = new OpenAI({ apiKey: secret.value, baseURL: `${tlsGateway.baseUrl}/v1` });
    const rt = new OpenAIRealtimeWS({ intent: 'transcription', options: { ca } }, browser);
    const events: any[] = [];
    const errors: unknown[] = [];
    rt.on('event', (event) => events.push(event));
    rt.on('error', (error) => errors.push(error));
    await new Promise<void>((resolve, reject) => rt.socket.once('open', resolve).once('error', reject));
    for (const chunk of chunks(speech, 160)) {
      rt.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
      await sleep(80);
    }
    const completed = () => events.filter((e) => e.type === 'conversation.item.input_audio_transcription.completed');
    for (let i = 0; i < 300 && completed().length < 2; i++) await sleep(100);
    const closed = new Promise<number>((resolve) => rt.socket.on('close', (code: number) => resolve(code)));
    rt.close();
    expect(await closed).toBe(1000);
    expect(errors).toEqual([]);

    const transcripts = completed().map((e) => e.transcript as string);
    expect(transcripts).toHaveLength(2);
    transcripts.forEach((text, i) => expect(wordsHeard(text, REFERENCES[i])).toBeGreaterThanOrEqual(0.5));
    expect(events.filter((e) => e.type === 'input_audio_buffer.speech_started')).toHaveLength(2);
    expect(events.some((e) => e.type === 'conversation.item.input_audio_transcription.delta')).toBe(true);

    const session = await sessionOf(tlsGateway, apiKey, sessionId);
    expect(session.usage.frames).toBe(speech.length / 3840);
  }, 120_000);

  it('transcribes flite speech for the Deepgram SDK (listen) and bills the audio once', async () => {
    const { apiKey } = await gateway.newProject();
    const deepgram = new DeepgramClient({ apiKey, baseUrl: gateway.baseUrl.replace('http', 'ws') });
    const connection = await deepgram.listen.v1.connect({
      model: 'nova-3',
      language: 'en',
      encoding: 'linear16',
      sample_rate: 24000,
      interim_results: 'true',
      endpointing: 500,
      reconnectAttempts: 0,
    });
    const messages: any[] = [];
    const closes: number[] = [];
    connection.on('message', (m) => messages.push(m));
    connection.on('close', (event) => closes.push(event.code));
    connection.connect();
    await connection.waitForOpen();
    for (const chunk of chunks(speech, 160)) {
      connection.sendMedia(chunk);
      await sleep(80);
    }
    const finals = () =>
      messages.filter((m) => m.type === 'Results' && m.is_final === true && m.channel.alternatives[0].transcript);
    for (let i = 0; i < 300 && finals().length < 2; i++) await sleep(100);
    connection.sendCloseStream({ type: 'CloseStream' });
    for (let i = 0; i < 100 && closes.length === 0; i++) await sleep(50);
    expect(closes[0]).toBe(1000);

    const transcripts = finals().map((m) => m.channel.alternatives[0].transcript as string);
    expect(transcripts).toHaveLength(2);
    transcripts.forEach((text, i) => expect(wordsHeard(text, REFERENCES[i])).toBeGreaterThanOrEqual(0.5));
    const metadata = messages.find((m) => m.type === 'Metadata');
    const session = await sessionOf(gateway, apiKey, metadata.request_id);
    expect(session.usage.frames).toBe(speech.length / 3840);
  }, 120_000);
});

/**
 * The official `openai` package against the service: its Realtime WebSocket client only speaks
 * wss:, so the service serves TLS here with a certificate made for the test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { chunks, silence, sleep, tone } from '../support/audio';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { fetchTrusting, pemPair } from '../support/tls-and-words';

describe.each(databaseTargets())('realtime socket with the official openai SDK over TLS on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  let dir: string;
  let ca: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'continuum-tls-'));
    const { cert, key } = pemPair(dir);
    ca = readFileSync(cert);
    t = await startTestApp(target, { env: { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } });
    ({ apiKey } = await t.newProject());
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a secret with the SDK, streams speech over wss, gets deltas and transcripts, and bills the session', async () => {
    expect(t.baseUrl).toMatch(/^https:/);
    const server = new OpenAI({ apiKey, baseURL: `${t.baseUrl}/v1`, fetch: fetchTrusting(ca) });
    const secret = await server.realtime.clientSecrets.create({
      expires_after: { anchor: 'created_at', seconds: 120 },
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            noise_reduction: { type: 'near_field' },
            transcription: { model: 'vendor-asr-streaming' as 'whisper-1', language: 'en' },
            turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
          },
        },
      },
    });
    expect(secret.value).toMatch(/^ek_/);
    expect(secret.session).toMatchObject({ object: 'realtime.transcription_session', type: 'transcription' });
    const sessionId = (secret.session as { id: string }).id;

    // The browser's path: only the secret leaves the server.
    const browser = new OpenAI({ apiKey: secret.value, baseURL: `${t.baseUrl}/v1` });
    const rt = new OpenAIRealtimeWS({ intent: 'transcription', options: { ca } }, browser);
    expect(rt.url.toString()).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/v1\/realtime\?intent=transcription$/);
    const events: { type: string; [key: string]: any }[] = [];
    const errors: unknown[] = [];
    rt.on('event', (event) => events.push(event));
    rt.on('error', (error) => errors.push(error));
    const closed = new Promise<number>((resolve) => rt.socket.on('close', (code: number) => resolve(code)));
    await new Promise<void>((resolve, reject) => rt.socket.once('open', resolve).once('error', reject));

    rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: '' },
            turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
          },
        },
        include: ['item.input_audio_transcription.logprobs'],
      },
    });
    const speech = Buffer.concat([tone(1200), silence(800), tone(800), silence(800)]);
    for (const chunk of chunks(speech, 200)) {
      rt.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
      await sleep(100);
    }
    const completedOf = () => events.filter((e) => e.type === 'conversation.item.input_audio_transcription.completed');
    for (let i = 0; i < 100 && completedOf().length < 2; i++) await sleep(50);
    rt.close();
    expect(await closed).toBe(1000);
    expect(errors).toEqual([]);

    expect(events[0]).toMatchObject({ type: 'session.created', session: { id: sessionId } });
    expect(events[0].session.audio.input.transcription).toEqual({ model: 'vendor-asr-streaming', language: 'en' });
    expect(events.find((e) => e.type === 'session.updated')).toBeDefined();
    const deltas = events.filter((e) => e.type === 'conversation.item.input_audio_transcription.delta');
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    const completed = completedOf();
    expect(completed.map((e) => e.transcript)).toEqual(['one two three', 'one two']);
    expect(completed[0].usage).toEqual({ type: 'duration', seconds: 1.2 });
    const committed = events.filter((e) => e.type === 'input_audio_buffer.committed');
    expect(committed.map((e) => e.item_id)).toEqual(completed.map((e) => e.item_id));
    expect(committed[1].previous_item_id).toBe(committed[0].item_id);

    const rest = fetchTrusting(ca);
    let session: any;
    for (let i = 0; i < 100; i++) {
      const res = await rest(`${t.baseUrl}/v1/sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      session = await res.json();
      if (session.status === 'closed') break;
      await sleep(50);
    }
    expect(session).toMatchObject({
      id: sessionId,
      type: 'transcription',
      status: 'closed',
      close_reason: 'close_requested',
      usage: { frames: 45, seconds: 3.6 },
    });
    expect(Number(session.usage.cost_usd)).toBeGreaterThan(0);
  }, 60_000);
});

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

  async function session(apiKey: string, id: string) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/sessions/${id}`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  describe('the openai SDK', () => {
    it('json: the text, usage by duration, and a closed transcription session billed for it', async () => {
      const { apiKey } = await t.newProject();
      const result = await openai(apiKey).audio.transcriptions.create({
        file: await toFile(wav, 'speech.wav'),
        model: 'gpt-4o-transcribe',
      });
      expect(wer(spoken.sentences, result.text)).toBeLessThanOrEqual(0.25);
      expect(result.usage).toEqual({ type: 'duration', seconds: Math.ceil(spoken.durationMs / 80) * 0.08 });
      const list = await t.app.inject({
        method: 'GET',
        url: '/v1/sessions',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const [only] = list.json().data;
      expect(only).toMatchObject({ type: 'transcription', model: 'vendor-asr-streaming', status: 'closed' });
      const row = await session(apiKey, only.id);
      expect(row.close_reason).toBe('close_requested');
    }, 60_000);
  });
});

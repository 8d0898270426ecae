/**
 * Voice-to-voice latency of a voicechat session, as a user hears it: from the last voiced sample of
 * a spoken turn (played at real-time pace, 80 ms chunks) to the first audible frame of the answer
 * received. The session is opened with a client secret, so that its turn detection can be chosen:
 * the end-of-turn confidence with eager answers (the default) or the fixed-silence baseline.
 */
import WebSocket from 'ws';
import type { LabelledTurn } from './turn-set';

const CHUNK_BYTES = 3840;
/** RMS above which an answer frame is audible (flite speech is in the thousands; silence is 0). */
const AUDIBLE_RMS = 300;

export interface VoiceToVoice {
  turn: LabelledTurn;
  /** ms from the last voiced sample to the first audible answer frame; null: no answer heard. */
  latencyMs: number | null;
  /** Answers that started before the user had finished (inside a pause). */
  earlyAnswers: number;
}

export async function voiceToVoice(
  baseUrl: string,
  apiKey: string,
  turn: LabelledTurn,
  endOfTurn: Record<string, unknown> | null,
): Promise<VoiceToVoice> {
  const created = await fetch(`${baseUrl}/v1/live/client_secrets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      session: { model: 'vendor-voicechat', audio: { input: { turn_detection: { end_of_turn: endOfTurn } } } },
    }),
  });
  const secret = ((await created.json()) as { value: string }).value;
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v1/live/sessions?token=${secret}`);
  const audible: number[] = [];
  const answers: number[] = [];
  let started = false;
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const event = JSON.parse(String(data)) as { type: string; delta?: string; event?: { type: string } };
    if (event.type === 'session.started') started = true;
    if (event.type === 'session.turn.event' && event.event?.type === 'response_started')
      answers.push(performance.now());
    if (event.type === 'session.output_audio.delta' && rms(Buffer.from(event.delta ?? '', 'base64')) > AUDIBLE_RMS) {
      audible.push(performance.now());
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'session.start', session: { model: 'vendor-voicechat' } }));
  while (!started) await new Promise((resolve) => setTimeout(resolve, 10));
  const pcm = Buffer.from(turn.pcm.buffer, turn.pcm.byteOffset, turn.pcm.byteLength);
  const t0 = performance.now();
  for (let i = 0; i * CHUNK_BYTES < pcm.length; i++) {
    const wait = t0 + (i + 1) * 80 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const chunk = pcm.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES);
    ws.send(JSON.stringify({ type: 'session.input_audio.append', audio: chunk.toString('base64') }));
  }
  const deadline = performance.now() + 3000;
  while (audible.length === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  ws.send(JSON.stringify({ type: 'session.close' }));
  ws.close();
  const speechEndAt = t0 + turn.speechEndMs;
  const first = audible.find((at) => at >= speechEndAt) ?? null;
  return {
    turn,
    latencyMs: first === null ? null : Math.round(first - speechEndAt),
    earlyAnswers: answers.filter((at) => at < speechEndAt).length,
  };
}

function rms(pcm: Buffer): number {
  let sum = 0;
  const n = Math.floor(pcm.length / 2);
  for (let i = 0; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return n === 0 ? 0 : Math.sqrt(sum / n);
}

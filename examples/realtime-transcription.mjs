// Streaming transcription through the official openai SDK's Realtime client (OpenAIRealtimeWS).
// The server mints a client secret with its API key; the socket is opened with the secret alone,
// as a browser would. The SDK's Realtime client connects over wss only: BASE_URL must be https.
// Usage: BASE_URL=https://speech.example.com API_KEY=wk_… AUDIO_FILE=speech.wav node examples/realtime-transcription.mjs
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { readWav, streamInRealTime } from './wav.mjs';

const { BASE_URL = 'https://localhost:8080', API_KEY, AUDIO_FILE = 'speech.wav' } = process.env;
const { sampleRate, pcm } = readWav(AUDIO_FILE);
if (sampleRate !== 24000) throw new Error('the Realtime socket takes pcm16 at 24000 Hz');

const server = new OpenAI({ apiKey: API_KEY, baseURL: `${BASE_URL}/v1` });
const secret = await server.realtime.clientSecrets.create({
  session: {
    type: 'transcription',
    audio: { input: { transcription: { model: 'vendor-asr-streaming', language: 'en' } } },
  },
});

const rt = new OpenAIRealtimeWS(
  { intent: 'transcription' },
  new OpenAI({ apiKey: secret.value, baseURL: `${BASE_URL}/v1` }),
);
const pending = new Set();
rt.on('input_audio_buffer.committed', (event) => pending.add(event.item_id));
rt.on('conversation.item.input_audio_transcription.completed', (event) => {
  pending.delete(event.item_id);
  console.log(`transcript: ${event.transcript}`);
});
rt.on('error', (error) => {
  console.error(error.message);
  process.exitCode = 1;
});
rt.socket.on('close', (code) => console.log(`closed: ${code}`));
rt.socket.on('open', async () => {
  await streamInRealTime(pcm, sampleRate, 100, (chunk) =>
    rt.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') }),
  );
  // Close once every utterance the server committed has its transcript.
  while (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  rt.close();
});

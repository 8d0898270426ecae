// Streaming transcription through the official @deepgram/sdk live client, pointed at the service.
// Usage: BASE_URL=http://localhost:8080 API_KEY=wk_… AUDIO_FILE=speech.wav node examples/deepgram-transcription.mjs
// AUDIO_FILE: 16-bit mono WAV at any rate from 8000 to 48000 Hz.
import { DeepgramClient } from '@deepgram/sdk';
import { readWav, streamInRealTime } from './wav.mjs';

const { BASE_URL = 'http://localhost:8080', API_KEY, AUDIO_FILE = 'speech.wav' } = process.env;
const { sampleRate, pcm } = readWav(AUDIO_FILE);

const deepgram = new DeepgramClient({ apiKey: API_KEY, baseUrl: BASE_URL.replace(/^http/, 'ws') });
const connection = await deepgram.listen.v1.connect({
  model: 'nova-3',
  encoding: 'linear16',
  sample_rate: sampleRate,
  punctuate: 'true',
  reconnectAttempts: 0,
});
connection.on('message', (message) => {
  if (message.type === 'Results' && message.is_final)
    console.log(`transcript: ${message.channel.alternatives[0].transcript}`);
  if (message.type === 'Metadata') console.log(`session ${message.request_id}: ${message.duration} s of audio`);
});
connection.on('error', (error) => {
  console.error(error.message);
  process.exitCode = 1;
});
connection.on('close', (event) => console.log(`closed: ${event.code}`));
connection.connect();
await connection.waitForOpen();
await streamInRealTime(pcm, sampleRate, 100, (chunk) => connection.sendMedia(chunk));
connection.sendCloseStream({ type: 'CloseStream' }); // the last results, Metadata, then close 1000

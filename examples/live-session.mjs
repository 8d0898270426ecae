// A spoken conversation with vendor-voicechat through the official openai SDK's live client (LiveWS).
// Usage: BASE_URL=http://localhost:8080 API_KEY=wk_… AUDIO_FILE=question.wav node examples/live-session.mjs
// AUDIO_FILE: 16-bit mono WAV at 24000 Hz, e.g. a question followed by a second of silence.
import OpenAI from 'openai';
import { LiveWS } from 'openai/resources/live/ws';
import { readWav, streamInRealTime } from './wav.mjs';

const { BASE_URL = 'http://localhost:8080', API_KEY, AUDIO_FILE = 'question.wav' } = process.env;
const { sampleRate, pcm } = readWav(AUDIO_FILE);
if (sampleRate !== 24000) throw new Error('the live socket takes pcm16 at 24000 Hz');

const live = new LiveWS(new OpenAI({ apiKey: API_KEY, baseURL: `${BASE_URL}/v1` }));
let replyBytes = 0;
let closing = false;
live.on('event', async (event) => {
  switch (event.type) {
    case 'session.started':
      console.log(`session ${event.session.id} started`);
      // 80 ms frames, as a microphone would deliver them
      await streamInRealTime(pcm, sampleRate, 80, (frame) => {
        if (!closing) live.send({ type: 'session.input_audio.append', audio: frame.toString('base64') });
      });
      break;
    case 'session.input_transcript.delta':
      if (event.done) console.log(`you:  ${event.transcript}`);
      break;
    case 'session.output_audio.delta':
      replyBytes += Buffer.byteLength(event.delta, 'base64'); // pcm16 24 kHz: play it
      break;
    case 'session.output_transcript.delta':
      if (event.done) console.log(`aria: ${event.transcript}`);
      break;
    case 'session.turn.event':
      if (event.event.type === 'response_done' && !closing) {
        closing = true; // one answer is enough for this example
        live.send({ type: 'session.close' });
      }
      break;
    case 'session.closed':
      console.log(`closed: ${event.reason}, ${event.usage.seconds} s billed, ${replyBytes / 48000} s of answer audio`);
      break;
    case 'error':
      console.error(`error: ${event.error.code}: ${event.error.message}`);
      break;
  }
});
live.on('error', (error) => {
  console.error(error.message);
  process.exitCode = 1;
});
live.send({ type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } });

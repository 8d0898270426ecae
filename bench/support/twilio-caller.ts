/**
 * A phone call as Twilio places it on the native endpoint (/v1/telephony/twilio), lean enough for 50
 * at once: the app mints a client secret for the call, Twilio sends `connected` and `start` with the
 * secret in its custom parameters, then the caller's 20 ms mu-law `media` frames (on the step's clock,
 * not a timer of its own); it plays what it is sent in real time and echoes each `mark` when the audio
 * before it has played, as test/support/fake-twilio.ts does (the bridge's barge-in reads those marks).
 * Voice to voice ends at the first answer `media` frame received: what the service sent to Twilio.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { g711Encode } from '../../src/platform/audio/g711';
import { resampleClip } from '../../src/platform/audio/resampler';
import { TurnClock, type SpeakingSession } from './spoken-turns';

const MULAW_BYTES_PER_MS = 8;

/** The cycle's 24 kHz frames as a phone line carries them: base64 of 160 bytes of mu-law at 8 kHz each. */
export function mulawCycle(pcm24k: Buffer[]): string[] {
  return pcm24k.map((frame) => {
    const samples = new Int16Array(frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.length));
    return g711Encode('mulaw', resampleClip(samples, 24_000, 8000)).toString('base64');
  });
}

/** A client secret for one call, as the app's TwiML webhook mints it. */
async function mintSecret(baseUrl: string, apiKey: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/realtime/client_secrets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ session: { type: 'realtime', instructions: 'You answer the phone.' } }),
  });
  if (res.status !== 200) throw new Error(`client_secrets answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { value: string }).value;
}

export async function openTwilioCall(baseUrl: string, apiKey: string, mulaw: string[]): Promise<SpeakingSession> {
  const token = await mintSecret(baseUrl, apiKey);
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/telephony/twilio`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const streamSid = `MZ${randomBytes(16).toString('hex')}`;
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const clock = new TurnClock();
  let sequence = 0;
  let chunk = 0;
  let answering = false;
  /** When the audio sent so far will have played (the caller's phone plays in real time). */
  let playedUntil = 0;
  const marks = new Set<NodeJS.Timeout>();
  const send = (message: object) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(message));
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { event: string; media?: { payload: string }; mark?: { name: string } };
    if (message.event === 'media') {
      if (!answering) clock.heard();
      answering = true;
      const bytes = Buffer.byteLength(message.media!.payload, 'base64');
      playedUntil = Math.max(playedUntil, performance.now()) + bytes / MULAW_BYTES_PER_MS;
    } else if (message.event === 'mark') {
      const name = message.mark!.name;
      const echo = setTimeout(
        () => {
          marks.delete(echo);
          send({ event: 'mark', streamSid, sequenceNumber: String(++sequence), mark: { name } });
        },
        Math.max(0, playedUntil - performance.now()),
      );
      marks.add(echo);
    } else if (message.event === 'clear') {
      playedUntil = performance.now();
    }
  });
  send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  send({
    event: 'start',
    sequenceNumber: String(++sequence),
    streamSid,
    start: {
      streamSid,
      accountSid: `AC${randomBytes(16).toString('hex')}`,
      callSid,
      tracks: ['inbound'],
      customParameters: { token },
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    },
  });
  return {
    frame(i) {
      // A new turn begins: the last answer has long played (the cycle leaves 1.5 s for it).
      if (i === 0) answering = false;
      ++chunk;
      ws.send(
        `{"event":"media","sequenceNumber":"${++sequence}","streamSid":"${streamSid}","media":{"track":"inbound",` +
          `"chunk":"${chunk}","timestamp":"${chunk * 20}","payload":"${mulaw[i]}"}}`,
      );
      clock.sent(i);
    },
    clock,
    get ended() {
      return ws.readyState !== WebSocket.OPEN;
    },
    close() {
      for (const echo of marks) clearTimeout(echo);
      send({ event: 'stop', streamSid, sequenceNumber: String(++sequence), stop: { accountSid: 'AC', callSid } });
      ws.close(1000);
    },
  };
}

/**
 * A scripted Twilio Media Streams peer, as Twilio's side of a bidirectional `<Connect><Stream>`
 * behaves (../shared/reference/calls-and-phones.md): JSON text frames only; `connected`, then
 * `start` with the stream's ids and custom parameters, then the line: a 20 ms mu-law `media` frame
 * every 20 ms of real time until `stop`, the caller's speech where there is some and the line's
 * silence between (Twilio never pauses the inbound track, so a turn's end is heard as it is on a
 * phone: by silence that goes on); it plays what it is sent in real time (160 bytes per 20 ms),
 * echoes a `mark` when the audio sent before it has played, and on `clear` drops what it has not
 * played and echoes the marks still pending. What it played is kept, to check what the caller heard.
 */
import { WebSocket } from 'ws';
import { g711Encode } from '../../src/platform/audio/g711';
import { resampleClip } from '../../src/platform/audio/resampler';

const FRAME_BYTES = 160; // 20 ms of mu-law at 8 kHz
const FRAME_MS = 20;
const LINE_SILENCE = Buffer.alloc(FRAME_BYTES, 0xff); // mu-law's zero

export type TwilioMessage = { event: string; [key: string]: any };

type Queued = { kind: 'audio'; bytes: Buffer } | { kind: 'mark'; name: string };

export class FakeTwilio {
  readonly streamSid = `MZ${randomHex(32)}`;
  readonly callSid = `CA${randomHex(32)}`;
  /** Every message the server sent, in order, with the ms since start it arrived at. */
  readonly received: (TwilioMessage & { atMs: number })[] = [];
  /** The mu-law the caller heard, in order. */
  readonly played: Buffer[] = [];
  playedBytes = 0;
  /** ms of answer audio played when each `clear` arrived. */
  readonly clearedAtPlayedMs: number[] = [];
  closed: { code: number; reason: string } | null = null;
  private readonly queue: Queued[] = [];
  private sequence = 0;
  private mediaChunk = 0;
  /** ms of the caller's line sent (media frames' own time). */
  sentMs = 0;
  private readonly startedAt = Date.now();
  private player: NodeJS.Timeout | null = null;
  private line: NodeJS.Timeout | null = null;
  private lineStartedAt = 0;
  private framesSent = 0;
  /** The caller's speech still to go on the line, each part resolved once its last frame is sent. */
  private readonly speech: { bytes: Buffer; sent: () => void }[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) throw new Error('Twilio never gets binary frames');
      const message = JSON.parse(data.toString()) as TwilioMessage;
      this.received.push({ ...message, atMs: Date.now() - this.startedAt });
      this.take(message);
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.stopPlayer();
      this.hangUpLine();
    });
  }

  static async connect(url: string, options: ConstructorParameters<typeof WebSocket>[2] = {}): Promise<FakeTwilio> {
    const ws = new WebSocket(url, options);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    });
    const twilio = new FakeTwilio(ws);
    twilio.player = setInterval(() => twilio.playFrame(), FRAME_MS);
    return twilio;
  }

  /** `connected` then `start`, as Twilio opens every stream. */
  start(customParameters: Record<string, string>): void {
    this.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    this.send({
      event: 'start',
      sequenceNumber: String(++this.sequence),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: `AC${randomHex(32)}`,
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    this.lineStartedAt = Date.now();
    this.line = setInterval(() => this.feedLine(), FRAME_MS);
  }

  /** The caller speaks (mu-law) on the line; resolves when the last of it has been sent. */
  speak(mulaw: Buffer): Promise<void> {
    if (this.line === null) throw new Error('speak() after start() and before stop()');
    return new Promise((sent) => this.speech.push({ bytes: mulaw, sent }));
  }

  sendMedia(payload: Buffer): void {
    this.send({
      event: 'media',
      sequenceNumber: String(++this.sequence),
      streamSid: this.streamSid,
      media: {
        track: 'inbound',
        chunk: String(++this.mediaChunk),
        timestamp: String(Math.round(this.sentMs)),
        payload: payload.toString('base64'),
      },
    });
    this.sentMs += (payload.length / FRAME_BYTES) * FRAME_MS;
  }

  dtmf(digit: string): void {
    this.send({
      event: 'dtmf',
      streamSid: this.streamSid,
      sequenceNumber: String(++this.sequence),
      dtmf: { track: 'inbound_track', digit },
    });
  }

  stop(): void {
    this.hangUpLine();
    this.send({
      event: 'stop',
      streamSid: this.streamSid,
      sequenceNumber: String(++this.sequence),
      stop: { accountSid: 'AC', callSid: this.callSid },
    });
  }

  send(message: object): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  get playedMs(): number {
    return (this.playedBytes / FRAME_BYTES) * FRAME_MS;
  }

  /** Bytes of answer audio waiting to play. */
  get queuedBytes(): number {
    return this.queue.reduce((sum, q) => sum + (q.kind === 'audio' ? q.bytes.length : 0), 0);
  }

  messages(event: string): (TwilioMessage & { atMs: number })[] {
    return this.received.filter((m) => m.event === event);
  }

  close(): void {
    this.stopPlayer();
    this.hangUpLine();
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
  }

  private take(message: TwilioMessage): void {
    if (message.event === 'media') {
      if (message.streamSid !== this.streamSid) throw new Error(`media for another stream: ${message.streamSid}`);
      this.queue.push({ kind: 'audio', bytes: Buffer.from(message.media.payload, 'base64') });
    } else if (message.event === 'mark') {
      this.queue.push({ kind: 'mark', name: message.mark.name });
      this.echoPlayedMarks();
    } else if (message.event === 'clear') {
      this.clearedAtPlayedMs.push(this.playedMs);
      const marks = this.queue.filter((q): q is Extract<Queued, { kind: 'mark' }> => q.kind === 'mark');
      this.queue.length = 0;
      for (const mark of marks) this.echo(mark.name);
    }
  }

  /** The frames due by now, in real time: timers that fire late send their frames together, as a jittery network does. */
  private feedLine(): void {
    const due = Math.floor((Date.now() - this.lineStartedAt) / FRAME_MS);
    for (; this.framesSent < due; this.framesSent++) {
      const part = this.speech[0];
      if (!part) {
        this.sendMedia(LINE_SILENCE);
        continue;
      }
      const frame = part.bytes.subarray(0, FRAME_BYTES);
      part.bytes = part.bytes.subarray(frame.length);
      this.sendMedia(
        frame.length === FRAME_BYTES ? frame : Buffer.concat([frame, LINE_SILENCE.subarray(frame.length)]),
      );
      if (part.bytes.length === 0) {
        this.speech.shift();
        part.sent();
      }
    }
  }

  private hangUpLine(): void {
    if (this.line !== null) clearInterval(this.line);
    this.line = null;
    for (const part of this.speech.splice(0)) part.sent();
  }

  /** One 20 ms frame of playback; marks whose audio has all played are echoed. */
  private playFrame(): void {
    this.echoPlayedMarks();
    let want = FRAME_BYTES;
    while (want > 0 && this.queue[0]?.kind === 'audio') {
      const head = this.queue[0];
      const take = head.bytes.subarray(0, want);
      this.played.push(take);
      this.playedBytes += take.length;
      want -= take.length;
      if (take.length === head.bytes.length) this.queue.shift();
      else head.bytes = head.bytes.subarray(take.length);
    }
    this.echoPlayedMarks();
  }

  private echoPlayedMarks(): void {
    while (this.queue[0]?.kind === 'mark') this.echo((this.queue.shift() as { name: string }).name);
  }

  private echo(name: string): void {
    this.send({ event: 'mark', streamSid: this.streamSid, sequenceNumber: String(++this.sequence), mark: { name } });
  }

  private stopPlayer(): void {
    if (this.player !== null) clearInterval(this.player);
    this.player = null;
  }
}

/** pcm16 mono at `rate` → mu-law at 8 kHz, as a phone line carries it. */
export function toMulaw(samples: Int16Array, rate: number): Buffer {
  return g711Encode('mulaw', resampleClip(samples, rate, 8000));
}

function randomHex(length: number): string {
  let out = '';
  while (out.length < length) out += Math.floor(Math.random() * 16).toString(16);
  return out;
}

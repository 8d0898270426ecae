/**
 * One client of the load generator: a live socket that streams the script's audio at real time
 * and times the events its probe frames cause. Kept cheap, since hundreds share one process with
 * the scheduler: frames are prebuilt buffers, and output deltas (the bulk of what comes back)
 * are recognised by their prefix, never parsed.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { LoadRecorder } from './load-recorder';
import { CYCLE_FRAMES, FRAME_BYTES, FRAME_MS, isSpeech, outputDueMs, probeOf, type Probe } from './script';

export interface SocketTarget {
  url: string;
  authorization: string;
  /** Output as binary frames (`audio.output.encoding: 'binary'`) instead of base64 deltas. */
  binaryOutput: boolean;
}

const appendOf = (pcm: Buffer) =>
  Buffer.from(JSON.stringify({ type: 'session.input_audio.append', audio: pcm.toString('base64') }));
const SPEECH_FRAME = appendOf(tone(220, 8000));
const SILENCE_FRAME = appendOf(Buffer.alloc(FRAME_BYTES));
const OUTPUT_PREFIX = Buffer.from('{"type":"session.output_audio.delta"');
const CYCLE_MS = CYCLE_FRAMES * FRAME_MS;
const START_TIMEOUT_MS = 30_000;
const CLOSE_TIMEOUT_MS = 15_000;

function tone(hz: number, amplitude: number): Buffer {
  const pcm = Buffer.alloc(FRAME_BYTES);
  for (let i = 0; i < FRAME_BYTES / 2; i++)
    pcm.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 24_000)), i * 2);
  return pcm;
}

function startMessage(binaryOutput: boolean): string {
  const output = binaryOutput ? { voice: 'aria', encoding: 'binary' } : { voice: 'aria' };
  return JSON.stringify({ type: 'session.start', session: { model: 'vendor-voicechat', audio: { output } } });
}

export class LoadSession {
  /** When the next frame is due (performance.now() ms); the scheduler owns it. */
  due = 0;
  private index = 0;
  private readonly pending: Record<Probe, number[]> = { speech_started: [], input_word: [], first_output: [] };
  private outputIndex = -1;
  private firstOutputAt = 0;
  private ws: WebSocket | null = null;
  private closing = false;
  private closed: Promise<void> = Promise.resolve();

  /** `lead`: silent frames before the first turn, so that sessions are not in step. */
  constructor(
    private readonly lead: number,
    private readonly recorder: LoadRecorder,
  ) {}

  /** Connects and starts the session; resolves on `session.started`. */
  open(target: SocketTarget): Promise<void> {
    const ws = new WebSocket(target.url, {
      headers: { authorization: target.authorization },
      perMessageDeflate: false,
      skipUTF8Validation: true,
    });
    this.ws = ws;
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    return new Promise((resolve, reject) => {
      const fail = (reason: string) => {
        clearTimeout(timer);
        ws.terminate();
        reject(new Error(reason));
      };
      const timer = setTimeout(() => fail('session.started did not come in time'), START_TIMEOUT_MS);
      ws.once('unexpected-response', (_req, res) => fail(`handshake refused: HTTP ${res.statusCode}`));
      ws.once('error', (error) => fail(error.message));
      ws.once('open', () => ws.send(startMessage(target.binaryOutput)));
      const onStart = (data: Buffer) => {
        const text = data.toString('utf8');
        if (text.includes('"session.started"')) {
          clearTimeout(timer);
          ws.off('message', onStart);
          ws.on('message', (message: Buffer, isBinary: boolean) => this.onMessage(message, isBinary));
          ws.on('close', () => {
            if (!this.closing) this.recorder.droppedSockets++;
          });
          resolve();
        } else if (text.includes('"error"')) {
          fail(`session.start refused: ${text.slice(0, 300)}`);
        }
      };
      ws.on('message', onStart);
    });
  }

  sendFrame(lateMs: number): void {
    const ws = this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN || this.closing) return;
    const probe = probeOf(this.index, this.lead);
    const speech = isSpeech(this.index, this.lead);
    this.index++;
    const at = performance.now();
    if (probe !== null) this.pending[probe].push(at);
    ws.send(speech ? SPEECH_FRAME : SILENCE_FRAME, { binary: false });
    this.recorder.sent(at, lateMs);
  }

  /** After sending stopped and answers had time to arrive: the probes still waiting are lost. */
  settle(): void {
    for (const queue of Object.values(this.pending)) {
      for (const sentAt of queue) this.recorder.lost(sentAt);
      queue.length = 0;
    }
  }

  /** Sends `session.close` and waits for the socket to end (terminating it if it does not). */
  async close(): Promise<void> {
    const ws = this.ws;
    if (ws === null) return;
    this.closing = true;
    if (ws.readyState === WebSocket.OPEN) ws.send('{"type":"session.close"}');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        ws.terminate();
        resolve();
      }, CLOSE_TIMEOUT_MS);
    });
    await Promise.race([this.closed, late]);
    clearTimeout(timer);
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    // Closing ends the turn in progress, which may say a word of it: not an answer to a probe.
    if (this.closing) return;
    const now = performance.now();
    if (
      isBinary ||
      (data.length > OUTPUT_PREFIX.length &&
        data.compare(OUTPUT_PREFIX, 0, OUTPUT_PREFIX.length, 0, OUTPUT_PREFIX.length) === 0)
    ) {
      return this.onOutput(now);
    }
    const event = JSON.parse(data.toString('utf8')) as {
      type: string;
      done?: boolean;
      event?: { type: string; interrupted?: boolean };
      error?: { code?: string; message?: string };
      code?: string;
    };
    switch (event.type) {
      case 'session.turn.event':
        if (event.event?.type === 'speech_started') this.matched('speech_started', now);
        else if (event.event?.type === 'response_started') this.outputIndex = 0;
        else if (event.event?.type === 'response_done' && event.event.interrupted) this.recorder.interruptedResponses++;
        return;
      case 'session.input_transcript.delta':
        if (event.done === false) this.matched('input_word', now);
        return;
      case 'error':
        return this.recorder.error(`${event.error?.code}: ${event.error?.message}`);
      case 'session.input_audio.warning':
      case 'session.output_audio.warning':
        this.recorder.warnings++;
        if (this.recorder.warnings === 1) this.recorder.firstError ??= `warning ${event.code}`;
        return;
    }
  }

  private onOutput(now: number): void {
    if (this.outputIndex === 0) {
      this.matched('first_output', now);
      this.firstOutputAt = now;
      this.recorder.output(now, null);
    } else if (this.outputIndex > 0) {
      this.recorder.output(now, now - (this.firstOutputAt + outputDueMs(this.outputIndex)));
    } else {
      this.recorder.surprise('output_before_response');
    }
    if (this.outputIndex >= 0) this.outputIndex++;
  }

  private matched(probe: Probe, now: number): void {
    const queue = this.pending[probe];
    // A probe whose event never came would shift every later match by a cycle: once its
    // successor was also sent and it is a cycle old, it is counted lost instead.
    while (queue.length > 1 && now - queue[0] > CYCLE_MS) this.recorder.lost(queue.shift()!);
    const sentAt = queue.shift();
    if (sentAt === undefined) this.recorder.surprise(probe);
    else this.recorder.probe(probe, sentAt, now);
  }
}

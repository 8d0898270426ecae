/**
 * A voicechat conversation as a user has it, for voice-to-voice and barge-in measurements: a live
 * session whose microphone streams without a break (80 ms binary chunks at real-time pace, silence
 * between turns), labelled turns (turn-set.ts) spoken into it when the caller says, and every
 * server event kept with the moment it arrived (performance.now()).
 *
 * A chunk goes out once all of it has been "spoken", so a sample is spoken at its chunk's send time
 * less the audio after it in the chunk: timed on the chunks really sent, a client that falls behind
 * its schedule on a busy machine does not count against the service.
 */
import WebSocket from 'ws';
import type { LabelledTurn } from './turn-set';

const CHUNK_MS = 80;
const SAMPLES_PER_MS = 24;
const CHUNK_SAMPLES = CHUNK_MS * SAMPLES_PER_MS;
/** RMS above which an answer frame is audible (flite speech is in the thousands; silence is 0). */
const AUDIBLE_RMS = 300;

/** A server event as it arrived; output audio is kept as its timing and whether it holds sound. */
export interface Arrival {
  at: number;
  /** The event's type; a turn event's is `turn.<its type>`. */
  type: string;
  itemId?: string;
  startMs?: number;
  endMs?: number;
  audible?: boolean;
  done?: boolean;
  /** turn.response_done: cut by barge-in. turn.speech_stopped: `endMs` is its end_ms. */
  interrupted?: boolean;
  /** An error event's code and message. */
  error?: string;
}

export interface SpokenTurn {
  turn: LabelledTurn;
  /** When the chunk holding the turn's first voiced sample was sent. */
  speechSentAt: number;
  /** When the turn's last voiced sample was spoken. */
  speechEndAt: number;
  /** Where it is on the session's input-audio timeline (the microphone's ms since its start). */
  speechEndInputMs: number;
}

interface QueuedTurn {
  turn: LabelledTurn;
  /** Stream sample at which the turn starts (a chunk boundary). */
  at: number;
  speechSentAt: number | null;
  resolve: ((spoken: SpokenTurn) => void) | null;
}

export class Conversation {
  readonly arrivals: Arrival[] = [];
  private readonly queue: QueuedTurn[] = [];
  /** Stream samples sent so far (a whole number of chunks). */
  private sent = 0;
  /** Where the next turn may start: after the audio of every turn queued. */
  private free = 0;
  private micTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly ws: WebSocket,
    readonly sessionId: string,
  ) {}

  /**
   * Opens a voicechat session through a client secret. `turnDetection` undefined keeps the
   * session's defaults; otherwise it is the secret's `turn_detection`.
   */
  static async open(baseUrl: string, apiKey: string, turnDetection?: Record<string, unknown>): Promise<Conversation> {
    const session: Record<string, unknown> = { model: 'vendor-voicechat' };
    if (turnDetection !== undefined) session.audio = { input: { turn_detection: turnDetection } };
    const created = await fetch(`${baseUrl}/v1/live/client_secrets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session }),
    });
    if (!created.ok) throw new Error(`client secret: HTTP ${created.status} ${await created.text()}`);
    const secret = ((await created.json()) as { value: string }).value;
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v1/live/sessions?token=${secret}`);
    const arrivals: Arrival[] = [];
    ws.on('message', (data, isBinary) => {
      if (!isBinary) arrivals.push(arrivalOf(performance.now(), JSON.parse(String(data)) as WireEvent));
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ type: 'session.start', session: { model: 'vendor-voicechat' } }));
    const started = await new Promise<WireEvent>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no session.started within 30 s')), 30_000);
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const event = JSON.parse(String(data)) as WireEvent;
        if (event.type === 'session.started' || event.type === 'error') {
          clearTimeout(timer);
          if (event.type === 'error') reject(new Error(`session.start refused: ${JSON.stringify(event)}`));
          else resolve(event);
        }
      });
    });
    const conversation = new Conversation(ws, String(started.session?.id));
    conversation.arrivals.push(...arrivals);
    ws.removeAllListeners('message');
    ws.on('message', (data, isBinary) => {
      if (!isBinary) conversation.arrivals.push(arrivalOf(performance.now(), JSON.parse(String(data)) as WireEvent));
    });
    conversation.startMicrophone();
    return conversation;
  }

  /**
   * Speaks `turn` from `offsetMs` into the next chunk on (where in a chunk speech starts decides how
   * much of it the first speech chunk holds); resolves once its last voiced sample has been sent.
   */
  say(turn: LabelledTurn, offsetMs = 0): Promise<SpokenTurn> {
    const at = Math.max(this.sent, this.free) + Math.round(offsetMs * SAMPLES_PER_MS);
    this.free = at + turn.pcm.length;
    return new Promise((resolve) => this.queue.push({ turn, at, speechSentAt: null, resolve }));
  }

  /** Resolves with the first arrival after `from` that `test` accepts, or null at `deadline`. */
  async next(test: (a: Arrival) => boolean, from: number, deadline: number): Promise<Arrival | null> {
    for (;;) {
      const found = this.arrivals.find((a) => a.at >= from && test(a));
      if (found || performance.now() >= deadline) return found ?? null;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async close(): Promise<void> {
    if (this.micTimer) clearTimeout(this.micTimer);
    this.micTimer = null;
    const closed = new Promise<void>((resolve) => {
      this.ws.once('close', () => resolve());
      setTimeout(resolve, 5000).unref();
    });
    this.ws.send(JSON.stringify({ type: 'session.close' }));
    await closed;
  }

  private startMicrophone(): void {
    const t0 = performance.now();
    let chunk = 0;
    const tick = () => {
      this.sendChunk();
      chunk++;
      this.micTimer = setTimeout(tick, Math.max(0, t0 + (chunk + 1) * CHUNK_MS - performance.now()));
    };
    this.micTimer = setTimeout(tick, CHUNK_MS);
  }

  private sendChunk(): void {
    const pcm = new Int16Array(CHUNK_SAMPLES);
    const from = this.sent;
    const to = from + CHUNK_SAMPLES;
    for (const q of this.queue) {
      const start = Math.max(from, q.at);
      const end = Math.min(to, q.at + q.turn.pcm.length);
      if (start < end) pcm.set(q.turn.pcm.subarray(start - q.at, end - q.at), start - from);
    }
    this.ws.send(Buffer.from(pcm.buffer));
    const sentAt = performance.now();
    this.sent = to;
    for (const q of this.queue) {
      const first = q.at + q.turn.speechStartMs * SAMPLES_PER_MS;
      const last = q.at + Math.round(q.turn.speechEndMs * SAMPLES_PER_MS) - 1;
      if (q.speechSentAt === null && first < to) q.speechSentAt = sentAt;
      if (q.resolve === null || last >= to) continue;
      q.resolve({
        turn: q.turn,
        speechSentAt: q.speechSentAt ?? sentAt,
        speechEndAt: sentAt - (to - 1 - last) / SAMPLES_PER_MS,
        speechEndInputMs: (last + 1) / SAMPLES_PER_MS,
      });
      q.resolve = null;
    }
    while (
      this.queue.length > 0 &&
      this.queue[0].resolve === null &&
      this.queue[0].at + this.queue[0].turn.pcm.length <= to
    )
      this.queue.shift();
  }
}

interface WireEvent {
  type: string;
  item_id?: string;
  delta?: string;
  start_ms?: number;
  end_ms?: number;
  done?: boolean;
  event?: { type: string; item_id?: string; end_ms?: number; interrupted?: boolean };
  session?: { id?: string };
  error?: { code?: string; message?: string };
}

function arrivalOf(at: number, e: WireEvent): Arrival {
  if (e.type === 'session.turn.event' && e.event) {
    const { type, item_id: itemId, end_ms: endMs, interrupted } = e.event;
    return { at, type: `turn.${type}`, itemId, endMs, interrupted };
  }
  if (e.type === 'session.output_audio.delta') {
    const audible = rms(Buffer.from(e.delta ?? '', 'base64')) > AUDIBLE_RMS;
    return { at, type: e.type, itemId: e.item_id, startMs: e.start_ms, endMs: e.end_ms, audible };
  }
  if (e.type === 'error') return { at, type: e.type, error: `${e.error?.code}: ${e.error?.message}` };
  return { at, type: e.type, itemId: e.item_id, done: e.done };
}

function rms(pcm: Buffer): number {
  let sum = 0;
  const n = Math.floor(pcm.length / 2);
  for (let i = 0; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return n === 0 ? 0 : Math.sqrt(sum / n);
}

/**
 * Plays one response: sentences of speech arrive from the speech server one after another; their
 * audio goes out paced in real time, at most `leadMs` ahead of the listener's playback, so a
 * barge-in the session does not see (manual turns) still stops the voice within that lead. Each
 * word's `output_transcript` delta goes out just before the audio it starts in, timed in ms within
 * the response's audio.
 *
 * The OpenAI speech API returns no word timings: a sentence's words share its audio in proportion
 * to their letters, known once the sentence's audio is complete (the speech server usually
 * finishes a sentence well before it is played; if not, its words follow as soon as it does).
 */
import type { TimerHandle, Timers } from '../../platform/clock/timers';
import type { EngineEvent } from '../../session-core';

const BYTES_PER_MS = 48;

export interface VoiceOptions {
  leadMs: number;
  /** Largest audio event, in ms. */
  chunkMs: number;
  /** What the audio is paced on. */
  clock: Timers;
}

interface TimedWord {
  text: string;
  startMs: number;
  endMs: number;
}

export class ResponseVoice {
  private readonly pieces: Buffer[] = [];
  private bufferedBytes = 0;
  private producedBytes = 0;
  private sentBytes = 0;
  private sentenceStartBytes = 0;
  private sentenceText = '';
  private readonly words: TimedWord[] = [];
  private wordsSent = 0;
  private complete = false;
  private ended = false;
  private clockStart: number | null = null;
  private timer: TimerHandle | null = null;
  private readonly spoken: string[] = [];
  private settle!: () => void;
  /** Resolves once the response is done (played out or interrupted). */
  readonly finished = new Promise<void>((resolve) => (this.settle = resolve));

  constructor(
    readonly itemId: string,
    private readonly options: VoiceOptions,
    private readonly emit: (event: EngineEvent) => void,
  ) {
    emit({ type: 'response_started', itemId });
  }

  /** The next sentence's audio starts here. */
  beginSentence(text: string): void {
    this.sentenceText = text;
    this.sentenceStartBytes = this.producedBytes;
  }

  addAudio(pcm: Buffer): void {
    if (this.ended || pcm.length === 0) return;
    this.pieces.push(pcm);
    this.bufferedBytes += pcm.length;
    this.producedBytes += pcm.length;
    this.pump();
  }

  /** The current sentence's audio is complete: its words can be timed. */
  endSentence(): void {
    if (this.ended) return;
    const startMs = this.sentenceStartBytes / BYTES_PER_MS;
    const spanMs = (this.producedBytes - this.sentenceStartBytes) / BYTES_PER_MS;
    const tokens = this.sentenceText.split(' ').filter(Boolean);
    const weights = tokens.map((t) => Math.max(1, t.replace(/[^\p{L}\p{N}]/gu, '').length));
    const total = weights.reduce((a, b) => a + b, 0);
    let before = 0;
    tokens.forEach((text, i) => {
      const from = startMs + (spanMs * before) / total;
      before += weights[i];
      this.words.push({ text, startMs: Math.round(from), endMs: Math.round(startMs + (spanMs * before) / total) });
    });
    this.sentenceText = '';
    this.pump();
  }

  /** No more sentences: the rest plays out, then the response is done. */
  end(): void {
    this.complete = true;
    this.pump();
  }

  /** Barge-in: stop now. */
  interrupt(): void {
    this.finish(true);
  }

  /** What the listener has heard so far (all of it once the response played out). */
  spokenText(): string {
    if (this.ended) return this.spoken.join(' ');
    const heardMs = this.clockStart === null ? 0 : this.options.clock.now() - this.clockStart;
    const untilMs = Math.min(heardMs, this.sentBytes / BYTES_PER_MS);
    return this.words
      .filter((w) => w.startMs < untilMs)
      .map((w) => w.text)
      .join(' ');
  }

  private pump(): void {
    if (this.ended) return;
    if (this.timer !== null) this.options.clock.clearTimer(this.timer);
    this.timer = null;
    const now = this.options.clock.now();
    this.clockStart ??= now;
    // Playback cannot run ahead of what was sent: after a stall its clock restarts from here.
    const sentMs = () => this.sentBytes / BYTES_PER_MS;
    if (now - this.clockStart > sentMs()) this.clockStart = now - sentMs();
    const maxBytes = this.options.chunkMs * BYTES_PER_MS;
    while (this.bufferedBytes > 0 && sentMs() < now - this.clockStart + this.options.leadMs) {
      this.send(Math.min(maxBytes, this.bufferedBytes));
    }
    this.sendWords(sentMs());
    if (this.complete && this.bufferedBytes === 0) {
      this.finish(false);
      return;
    }
    if (this.bufferedBytes > 0) {
      const dueIn = this.clockStart + sentMs() - this.options.leadMs - now;
      this.timer = this.options.clock.setTimer(() => this.pump(), Math.max(1, Math.ceil(dueIn)));
    }
  }

  private send(bytes: number): void {
    const endMs = (this.sentBytes + bytes) / BYTES_PER_MS;
    this.sendWords(endMs);
    const parts: Buffer[] = [];
    let taken = 0;
    while (taken < bytes) {
      const piece = this.pieces[0];
      const take = Math.min(piece.length, bytes - taken);
      parts.push(piece.subarray(0, take));
      if (take === piece.length) this.pieces.shift();
      else this.pieces[0] = piece.subarray(take);
      taken += take;
    }
    this.bufferedBytes -= bytes;
    this.sentBytes += bytes;
    const pcm = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    this.emit({ type: 'output_audio', itemId: this.itemId, pcm });
  }

  /** Sends the timed words that start before `untilMs` of the response's audio. */
  private sendWords(untilMs: number): void {
    while (this.wordsSent < this.words.length && this.words[this.wordsSent].startMs < untilMs) {
      const word = this.words[this.wordsSent++];
      const delta = this.spoken.length === 0 ? word.text : ` ${word.text}`;
      this.spoken.push(word.text);
      this.emit({
        type: 'output_transcript',
        itemId: this.itemId,
        delta,
        startMs: word.startMs,
        endMs: word.endMs,
        done: false,
      });
    }
  }

  private finish(interrupted: boolean): void {
    if (this.ended) return;
    if (!interrupted) this.sendWords(Number.POSITIVE_INFINITY);
    this.ended = true;
    if (this.timer !== null) this.options.clock.clearTimer(this.timer);
    this.timer = null;
    this.pieces.length = 0;
    this.bufferedBytes = 0;
    this.emit({
      type: 'output_transcript',
      itemId: this.itemId,
      delta: '',
      startMs: 0,
      endMs: Math.round(this.sentBytes / BYTES_PER_MS),
      done: true,
      // After a barge-in, the transcript is what was sent, not what was planned.
      transcript: this.spoken.join(' '),
    });
    this.emit({ type: 'response_done', itemId: this.itemId, interrupted });
    this.settle();
  }
}

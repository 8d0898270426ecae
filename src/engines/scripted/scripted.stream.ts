/**
 * One stream of the scripted engine. Speech is a frame louder than a threshold; a user turn
 * ends after the configured silence (server VAD) or on commit(). Each turn is transcribed as the
 * next words of a fixed list, one word per `wordEveryMs` of speech; a live session answers each
 * turn with a fixed text and a tone. Everything is synchronous and driven by pushed frames, so
 * tests can predict every event.
 */
import {
  FRAME_MS,
  type EngineEventSink,
  type EngineStream,
  type EngineStreamConfig,
  type EngineWord,
} from '../../session-core';
import { frameRms } from './scripted.audio';
import type { ScriptedEngineOptions } from './scripted.options';

const BYTES_PER_MS = 48;

interface Turn {
  readonly itemId: string;
  readonly startMs: number;
  speechMs: number;
  lastSpeechEndMs: number;
  silenceMs: number;
  readonly words: EngineWord[];
}

interface Reply {
  readonly itemId: string;
  producedMs: number;
  nextWord: number;
}

export class ScriptedStream implements EngineStream {
  private positionMs = 0;
  private msSinceBoundary = 0;
  private turn: Turn | null = null;
  private reply: Reply | null = null;
  private items = 0;
  private responses = 0;
  private closed = false;
  private readonly replyWords: readonly string[];

  constructor(
    private readonly config: EngineStreamConfig,
    private readonly sink: EngineEventSink,
    private readonly options: ScriptedEngineOptions,
    private readonly replyPcm: Buffer,
    private readonly release: () => void,
  ) {
    this.replyWords = options.reply.text.split(' ');
  }

  pushAudio(frame: Buffer): void {
    if (this.closed) return;
    const frameMs = frame.length / BYTES_PER_MS;
    const frameStart = this.positionMs;
    this.positionMs += frameMs;
    this.msSinceBoundary += frameMs;
    if (this.reply !== null) this.produceReply(this.options.reply.chunkMs);
    if (frameRms(frame) > this.options.speechRms) this.onSpeech(frameStart, frameMs);
    else if (this.turn !== null) this.onSilence(frameMs);
  }

  commit(): void {
    if (this.closed) return;
    if (this.turn !== null) this.endTurn(true);
    else if (this.msSinceBoundary > 0) this.emptyTurn();
  }

  clear(): void {
    this.turn = null;
    this.msSinceBoundary = 0;
  }

  interrupt(): void {
    const reply = this.reply;
    if (reply === null) return;
    this.reply = null;
    this.sink({ type: 'response_done', itemId: reply.itemId, interrupted: true });
  }

  close(): Promise<void> {
    if (!this.closed) {
      // What was heard is still transcribed; no answer is started any more.
      if (this.turn !== null) this.endTurn(false);
      this.closed = true;
      this.reply = null;
      this.release();
    }
    return Promise.resolve();
  }

  private get vad(): boolean {
    return this.config.turnDetection !== null;
  }

  private onSpeech(frameStart: number, frameMs: number): void {
    let turn = this.turn;
    if (turn === null) {
      turn = {
        itemId: `item_in_${++this.items}`,
        startMs: Math.round(frameStart),
        speechMs: 0,
        lastSpeechEndMs: 0,
        silenceMs: 0,
        words: [],
      };
      this.turn = turn;
      if (this.vad) this.sink({ type: 'speech_started', itemId: turn.itemId, audioStartMs: turn.startMs });
    }
    turn.speechMs += frameMs;
    turn.silenceMs = 0;
    turn.lastSpeechEndMs = Math.round(this.positionMs);
    while (turn.speechMs >= (turn.words.length + 1) * this.options.wordEveryMs) this.addWord(turn);
  }

  private onSilence(frameMs: number): void {
    const turn = this.turn!;
    turn.silenceMs += frameMs;
    if (this.vad && turn.silenceMs >= this.config.turnDetection!.silenceDurationMs) this.endTurn(true);
  }

  private addWord(turn: Turn): void {
    const list = this.options.words;
    const index = turn.words.length;
    const startMs = turn.startMs + index * this.options.wordEveryMs;
    const endMs = Math.max(startMs, Math.min(turn.lastSpeechEndMs, startMs + this.options.wordEveryMs));
    const word = list[index % list.length];
    turn.words.push({ word, startMs, endMs, confidence: 1 });
    const delta = index === 0 ? word : ` ${word}`;
    this.sink({ type: 'input_transcript', itemId: turn.itemId, delta, startMs, endMs, done: false });
  }

  private endTurn(answer: boolean): void {
    const turn = this.turn!;
    this.turn = null;
    this.msSinceBoundary = 0;
    if (turn.words.length === 0) this.addWord(turn);
    if (this.vad) this.sink({ type: 'speech_stopped', itemId: turn.itemId, audioEndMs: turn.lastSpeechEndMs });
    const transcript = turn.words.map((w) => w.word).join(' ');
    this.sink({
      type: 'input_transcript',
      itemId: turn.itemId,
      delta: '',
      startMs: turn.startMs,
      endMs: Math.max(turn.startMs, turn.lastSpeechEndMs),
      done: true,
      transcript,
      confidence: 1,
      words: turn.words,
    });
    if (answer && this.config.type === 'live') this.startReply();
  }

  /** A commit over audio without speech: an item with an empty transcript. */
  private emptyTurn(): void {
    const itemId = `item_in_${++this.items}`;
    const endMs = Math.round(this.positionMs);
    const startMs = Math.max(0, Math.round(endMs - this.msSinceBoundary));
    this.msSinceBoundary = 0;
    this.sink({
      type: 'input_transcript',
      itemId,
      delta: '',
      startMs,
      endMs,
      done: true,
      transcript: '',
      confidence: 1,
      words: [],
    });
  }

  private startReply(): void {
    if (this.reply !== null) this.interrupt();
    const reply: Reply = { itemId: `item_out_${++this.responses}`, producedMs: 0, nextWord: 0 };
    this.reply = reply;
    this.sink({ type: 'response_started', itemId: reply.itemId });
    this.produceReply(this.options.reply.chunkMs);
  }

  /** Produces the next `chunkMs` of the reply: its audio and the words that start in it. */
  private produceReply(chunkMs: number): void {
    const reply = this.reply!;
    const { durationMs } = this.options.reply;
    const fromMs = reply.producedMs;
    const toMs = Math.min(durationMs, fromMs + Math.max(FRAME_MS, chunkMs));
    const wordMs = durationMs / this.replyWords.length;
    while (reply.nextWord < this.replyWords.length && reply.nextWord * wordMs < toMs) {
      const i = reply.nextWord++;
      const last = i === this.replyWords.length - 1;
      this.sink({
        type: 'output_transcript',
        itemId: reply.itemId,
        delta: i === 0 ? this.replyWords[i] : ` ${this.replyWords[i]}`,
        startMs: Math.round(i * wordMs),
        endMs: Math.round((i + 1) * wordMs),
        done: last,
        ...(last ? { transcript: this.options.reply.text } : {}),
      });
    }
    const pcm = this.replyPcm.subarray(Math.round(fromMs * BYTES_PER_MS), Math.round(toMs * BYTES_PER_MS));
    reply.producedMs = toMs;
    this.sink({ type: 'output_audio', itemId: reply.itemId, pcm });
    if (toMs >= durationMs && this.reply === reply) {
      this.reply = null;
      this.sink({ type: 'response_done', itemId: reply.itemId, interrupted: false });
    }
  }
}

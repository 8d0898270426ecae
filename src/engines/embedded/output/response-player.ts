/**
 * Speaks one response at a time: synthesises it piece by piece (the first piece plays while the
 * next is synthesised) and sends 80 ms chunks paced in real time, a small lead ahead of a
 * listener's playback so network jitter does not starve it. Pacing is what lets a barge-in stop
 * the voice promptly: at most `leadMs` of audio is ever in flight. Each word's transcript delta is
 * sent just before the chunk in which the word starts; its startMs/endMs are offsets in the
 * response's audio.
 */
import { nodeTimers, type TimerHandle, type Timers } from '../../../platform/clock/timers';
import { EngineEvent } from '../../../session-core';
import { SynthesizedSpeech } from './flite-synthesizer';
import { SpokenWord } from './word-timing';

export interface Synthesizer {
  synthesize(text: string): Promise<SynthesizedSpeech>;
}

/** Silence kept before the first sound of a response. */
const LEAD_IN_MS = 20;
/** A 10 ms window quieter than this (RMS) is silence whatever the sentence's level. */
const SILENT_RMS = 100;
/**
 * Below the sentence's loudest 10 ms window by this much, a window before its first sound is
 * silence: flite's "silence" is not always zero, and a lone sample above SILENT_RMS in low-level
 * noise (RMS 30–90) used to count as the start, leaving up to 150 ms of quiet before the voice.
 */
const SILENCE_BELOW_PEAK_DB = -35;

/**
 * flite starts every utterance with 150–180 ms of silence: dead air before an answer that the user
 * waits through. The first sentence of a response starts LEAD_IN_MS before its first sound.
 */
export function withoutLeadingSilence(speech: SynthesizedSpeech): SynthesizedSpeech {
  const first = firstSound(speech.pcm, speech.sampleRate);
  const cut = Math.max(0, first - Math.round((LEAD_IN_MS * speech.sampleRate) / 1000));
  if (cut === 0 || first === speech.pcm.length) return speech;
  const cutMs = (cut * 1000) / speech.sampleRate;
  return {
    ...speech,
    pcm: speech.pcm.subarray(cut),
    words: speech.words.map((w) => ({
      ...w,
      startMs: Math.max(0, w.startMs - cutMs),
      endMs: Math.max(0, w.endMs - cutMs),
    })),
  };
}

/** Start of the first 10 ms window loud enough to be sound; pcm.length when none is. */
function firstSound(pcm: Int16Array, sampleRate: number): number {
  const window = Math.round(sampleRate / 100);
  const levels: number[] = [];
  for (let start = 0; start < pcm.length; start += window) {
    const end = Math.min(pcm.length, start + window);
    let sum = 0;
    for (let i = start; i < end; i++) sum += pcm[i] * pcm[i];
    levels.push(sum / (end - start));
  }
  const floor = Math.max(SILENT_RMS ** 2, Math.max(0, ...levels) * 10 ** (SILENCE_BELOW_PEAK_DB / 10));
  const index = levels.findIndex((level) => level >= floor);
  return index < 0 ? pcm.length : index * window;
}

export interface Piece {
  text: string;
  /** Goes on the sentence before it: spoken after that piece's own pause, without flite's lead-in. */
  continues: boolean;
}

/** A first clause this short or shorter is not worth a piece of its own. */
const MIN_CLAUSE_WORDS = 2;

/**
 * The pieces a response is synthesised in: its sentences, each played while the next is
 * synthesised. The answer is heard once its first piece is synthesised, and synthesis takes time
 * with the text's length, so the first sentence is cut after its first clause ("I heard:", "Today is
 * Friday,") when both sides have words enough to be spoken alone.
 */
export function piecesOf(text: string): Piece[] {
  const sentences =
    text
      .match(/[^.!?]+[.!?]*/g)
      ?.map((s) => s.trim())
      .filter(Boolean) ?? [];
  const pieces = sentences.map((sentence) => ({ text: sentence, continues: false }));
  const clause = sentences[0]?.match(/^([^,:;]+[,:;])\s+(.+)$/);
  if (clause && wordCount(clause[1]) >= MIN_CLAUSE_WORDS && wordCount(clause[2]) >= MIN_CLAUSE_WORDS) {
    pieces.splice(0, 1, { text: clause[1], continues: false }, { text: clause[2], continues: true });
  }
  return pieces;
}

const wordCount = (text: string): number => text.split(/\s+/).filter((w) => /[a-z0-9]/i.test(w)).length;

export interface PlayerOptions {
  sampleRate: number;
  chunkMs: number;
  /** Audio sent ahead of real time; Infinity sends everything as soon as it is synthesised. */
  leadMs: number;
}

interface Playback {
  itemId: string;
  text: string;
  pieces: Int16Array[];
  /** Samples synthesised / sent so far. */
  synthesized: number;
  sent: number;
  words: SpokenWord[];
  wordsSent: number;
  spokenText: string[];
  synthesisDone: boolean;
  /** The clock's time at which the listener's playback of sample 0 began. */
  clockStart: number;
  timer: TimerHandle | null;
  finished: boolean;
}

export class ResponsePlayer {
  private current: Playback | null = null;
  private readonly samplesPerMs: number;
  private readonly chunkSamples: number;

  constructor(
    private readonly synthesizer: Synthesizer,
    private readonly options: PlayerOptions,
    private readonly emit: (event: EngineEvent) => void,
    private readonly clock: Timers = nodeTimers,
  ) {
    this.samplesPerMs = options.sampleRate / 1000;
    this.chunkSamples = options.chunkMs * this.samplesPerMs;
  }

  get playing(): boolean {
    return this.current !== null;
  }

  /** Starts speaking `text` as response `itemId`, interrupting any response still playing. */
  speak(itemId: string, text: string): void {
    this.interrupt();
    const playback: Playback = {
      itemId,
      text,
      pieces: [],
      synthesized: 0,
      sent: 0,
      words: [],
      wordsSent: 0,
      spokenText: [],
      synthesisDone: false,
      clockStart: this.clock.now(),
      timer: null,
      finished: false,
    };
    this.current = playback;
    this.emit({ type: 'response_started', itemId });
    void this.synthesize(playback);
  }

  /** Stops the voice now; the response ends with `interrupted: true`. Returns whether one played. */
  interrupt(): boolean {
    const playback = this.current;
    if (!playback) return false;
    this.finish(playback, true);
    return true;
  }

  private async synthesize(playback: Playback): Promise<void> {
    try {
      for (const piece of piecesOf(playback.text)) {
        let speech = await this.synthesizer.synthesize(piece.text);
        if (playback.finished) return;
        if (playback.synthesized === 0 || piece.continues) speech = withoutLeadingSilence(speech);
        const offsetMs = playback.synthesized / this.samplesPerMs;
        for (const w of speech.words) {
          playback.words.push({
            text: w.text,
            startMs: Math.round(w.startMs + offsetMs),
            endMs: Math.round(w.endMs + offsetMs),
          });
        }
        playback.pieces.push(speech.pcm);
        playback.synthesized += speech.pcm.length;
        this.pump(playback);
      }
    } catch (error) {
      if (playback.finished) return;
      const message = error instanceof Error ? error.message : String(error);
      this.emit({ type: 'error', code: 'synthesis_failed', message });
    }
    playback.synthesisDone = true;
    this.pump(playback);
  }

  /** Sends every chunk that is due, then sleeps until the next one is. */
  private pump(playback: Playback): void {
    if (playback.finished) return;
    if (playback.timer !== null) this.clock.clearTimer(playback.timer);
    playback.timer = null;
    const now = this.clock.now();
    // Playback cannot run ahead of what was sent: after a stall, its clock restarts from here.
    if (now - playback.clockStart > playback.sent / this.samplesPerMs) {
      playback.clockStart = now - playback.sent / this.samplesPerMs;
    }
    while (playback.sent / this.samplesPerMs < now - playback.clockStart + this.options.leadMs) {
      const available = playback.synthesized - playback.sent;
      const size = Math.min(this.chunkSamples, available);
      if (size <= 0 || (size < this.chunkSamples && !playback.synthesisDone)) break;
      this.sendChunk(playback, size);
    }
    if (playback.synthesisDone && playback.sent >= playback.synthesized) {
      this.finish(playback, false);
      return;
    }
    if (playback.synthesized - playback.sent >= this.chunkSamples || playback.synthesisDone) {
      const dueIn = playback.clockStart + playback.sent / this.samplesPerMs - this.options.leadMs - now;
      playback.timer = this.clock.setTimer(() => this.pump(playback), Math.max(1, dueIn));
    }
  }

  private sendChunk(playback: Playback, size: number): void {
    const endMs = (playback.sent + size) / this.samplesPerMs;
    while (playback.wordsSent < playback.words.length && playback.words[playback.wordsSent].startMs < endMs) {
      this.sendWord(playback, playback.words[playback.wordsSent++]);
    }
    const pcm = Buffer.alloc(size * 2);
    let written = 0;
    while (written < size) {
      const piece = playback.pieces[0];
      const take = Math.min(piece.length, size - written);
      for (let i = 0; i < take; i++) pcm.writeInt16LE(piece[i], (written + i) * 2);
      written += take;
      if (take === piece.length) playback.pieces.shift();
      else playback.pieces[0] = piece.subarray(take);
    }
    playback.sent += size;
    this.emit({ type: 'output_audio', itemId: playback.itemId, pcm });
  }

  private sendWord(playback: Playback, word: SpokenWord): void {
    const delta = playback.spokenText.length === 0 ? word.text : ` ${word.text}`;
    playback.spokenText.push(word.text);
    this.emit({
      type: 'output_transcript',
      itemId: playback.itemId,
      delta,
      startMs: word.startMs,
      endMs: word.endMs,
      done: false,
    });
  }

  private finish(playback: Playback, interrupted: boolean): void {
    if (playback.finished) return;
    playback.finished = true;
    if (playback.timer !== null) this.clock.clearTimer(playback.timer);
    if (this.current === playback) this.current = null;
    if (!interrupted)
      while (playback.wordsSent < playback.words.length) this.sendWord(playback, playback.words[playback.wordsSent++]);
    this.emit({
      type: 'output_transcript',
      itemId: playback.itemId,
      delta: '',
      startMs: 0,
      endMs: Math.round(playback.sent / this.samplesPerMs),
      done: true,
      // After a barge-in, the transcript is what was actually sent, not what was planned.
      transcript: playback.spokenText.join(' '),
    });
    this.emit({ type: 'response_done', itemId: playback.itemId, interrupted });
  }
}

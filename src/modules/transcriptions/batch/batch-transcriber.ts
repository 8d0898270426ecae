/**
 * Transcribes decoded audio through the engine port, as a live session's engine hears it: each piece
 * of the file (cut at silences) goes to a transcription stream of its own, faster than real time, and
 * pieces run at once on as many streams as the budget spares. Works with every engine kind; the
 * embedded one decodes each stream on the libuv pool, so pieces in parallel use the machine's cores.
 *
 * Audio is pushed a second at a time with a turn of the event loop between, so that a long file does
 * not hold the loop from live sessions (the VAD scores on it).
 */
import { open } from 'node:fs/promises';
import {
  DEFAULT_VAD,
  EngineCapacityError,
  type EngineEvent,
  type EngineStream,
  type EngineWord,
  FRAME_BYTES,
  type SpeechEngine,
} from '../../../session-core';
import { AppError } from '../../../platform/errors/app-error';
import { PCM_RATE, PROFILE_WINDOW } from '../decoding/ffmpeg-decoder';
import { type Piece } from './silence-splitter';
import { StreamBudget } from './stream-budget';

export interface TranscriptSegment {
  startMs: number;
  endMs: number;
  text: string;
  confidence: number;
  words: EngineWord[];
}

export interface BatchJob {
  sessionId: string;
  model: string;
  language: string;
  pcmPath: string;
  pieces: Piece[];
  /** Each piece's segments, in the file's order, as soon as it and every piece before it are done. */
  onPieceDone?: (segments: TranscriptSegment[]) => void;
  /** Aborted: the client went away or the session was deleted. */
  signal: AbortSignal;
}

const OPEN_ATTEMPTS = 20;
const OPEN_RETRY_MS = 100;
const PUSH_BYTES = FRAME_BYTES * 12; // ~1 s of audio per turn of the loop
const MS_PER_WINDOW = (PROFILE_WINDOW * 1000) / PCM_RATE;

export class BatchTranscriber {
  constructor(
    private readonly engine: SpeechEngine,
    private readonly budget: StreamBudget,
  ) {}

  /** The whole file's segments in order. The caller has taken the first stream (budget.first()). */
  async run(job: BatchJob): Promise<TranscriptSegment[]> {
    const results: Array<TranscriptSegment[] | undefined> = new Array(job.pieces.length);
    let next = 0;
    let reported = 0;
    let failure: unknown = null;
    const report = () => {
      while (reported < results.length && results[reported] !== undefined) {
        const done = results[reported++]!;
        job.onPieceDone?.(done);
      }
    };
    // Every piece opens its stream on a grant of the budget. The first worker came with the caller's
    // grant and keeps a stream's worth for every piece it runs (the request always makes progress);
    // the others take a new grant per piece, and stop when none is spare.
    const worker = async (primary: boolean): Promise<void> => {
      let holding = true;
      try {
        while (failure === null && next < job.pieces.length) {
          job.signal.throwIfAborted();
          if (!holding) {
            if (primary) this.budget.retake();
            else if (!this.budget.more()) return;
            holding = true;
          }
          const index = next++;
          holding = false; // piece() settles the grant once its stream is open (or failed to open)
          results[index] = await this.piece(job, job.pieces[index]);
          report();
        }
      } catch (error) {
        failure ??= error;
      } finally {
        if (holding) this.budget.settle(false);
      }
    };
    // The first worker holds the stream the caller took; more join while the budget spares streams.
    await new Promise<void>((resolve) => {
      let active = 0;
      const grow = setInterval(() => {
        while (next < job.pieces.length && failure === null && this.budget.more()) start(false);
      }, 20);
      const start = (primary: boolean) => {
        active++;
        void worker(primary).finally(() => {
          // A worker ends only when no piece is left to start (or one failed): the last one out finishes.
          if (--active > 0) return;
          clearInterval(grow);
          resolve();
        });
      };
      start(true);
      while (next < job.pieces.length && failure === null && this.budget.more()) start(false);
    });
    if (failure !== null) throw failure;
    return results.flatMap((segments) => segments ?? []);
  }

  /** One piece on one stream; the stream's slot (granted by the budget) is settled once it is open or failed. */
  private async piece(job: BatchJob, piece: Piece): Promise<TranscriptSegment[]> {
    const offsetMs = piece.from * MS_PER_WINDOW;
    const segments: TranscriptSegment[] = [];
    let fatal: Extract<EngineEvent, { type: 'error' }> | null = null;
    let stream: EngineStream;
    let opened = false;
    try {
      stream = await this.open(
        {
          sessionId: job.sessionId,
          type: 'transcription',
          model: job.model,
          language: job.language,
          voice: null,
          turnDetection: DEFAULT_VAD,
        },
        (event) => {
          if (event.type === 'error' && event.fatal) fatal ??= event;
          if (event.type !== 'input_transcript' || !event.done) return;
          const text = (event.transcript ?? '').trim();
          if (text === '') return;
          segments.push({
            startMs: Math.round(offsetMs + event.startMs),
            endMs: Math.round(offsetMs + event.endMs),
            text,
            confidence: event.confidence ?? 0,
            words: (event.words ?? []).map((w) => ({
              ...w,
              startMs: Math.round(offsetMs + w.startMs),
              endMs: Math.round(offsetMs + w.endMs),
            })),
          });
        },
      );
      opened = true;
    } finally {
      this.budget.settle(opened);
    }
    try {
      await this.feed(job, piece, stream, () => fatal !== null);
    } finally {
      await stream.close();
      this.budget.release();
    }
    if (fatal !== null) {
      const { code, message } = fatal as Extract<EngineEvent, { type: 'error' }>;
      throw new Error(`the engine failed (${code}): ${message}`);
    }
    return segments;
  }

  /**
   * A stream the budget granted can still be taken first by a live session opening at that moment:
   * the piece waits for the next one to come free rather than fail the request.
   */
  private async open(...[config, sink]: Parameters<SpeechEngine['open']>): Promise<EngineStream> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.engine.open(config, sink);
      } catch (error) {
        if (!(error instanceof EngineCapacityError) || attempt >= OPEN_ATTEMPTS) throw capacityRefusal(error);
        await new Promise((resolve) => setTimeout(resolve, OPEN_RETRY_MS));
      }
    }
  }

  private async feed(job: BatchJob, piece: Piece, stream: EngineStream, failed: () => boolean): Promise<void> {
    const bytesPerWindow = PROFILE_WINDOW * 2;
    const file = await open(job.pcmPath, 'r');
    try {
      let position = piece.from * bytesPerWindow;
      const end = piece.to * bytesPerWindow;
      const buffer = Buffer.alloc(PUSH_BYTES);
      while (position < end && !failed()) {
        job.signal.throwIfAborted();
        const { bytesRead } = await file.read(buffer, 0, Math.min(PUSH_BYTES, end - position), position);
        if (bytesRead === 0) break;
        position += bytesRead;
        for (let at = 0; at < bytesRead; at += FRAME_BYTES) {
          stream.pushAudio(Buffer.from(buffer.subarray(at, Math.min(bytesRead, at + FRAME_BYTES))));
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      await file.close();
    }
  }
}

function capacityRefusal(error: unknown): unknown {
  if (!(error instanceof EngineCapacityError)) return error;
  return new AppError('capacity_exhausted', 'No engine stream came free for this transcription; retry later', {
    retryAfterMs: error.retryAfterMs,
  });
}

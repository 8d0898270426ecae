/**
 * The audio of a Deepgram socket: a byte stream of pcm16 at the client's rate (or G.711 mu-law or
 * A-law at 8 kHz, one byte a sample), in frames of any size. A frame may split a pcm16 sample (an
 * odd byte waits for the next frame), G.711 is decoded and other rates are resampled to the
 * session's 24 kHz, and the stream's length and SHA-256 feed the closing `Metadata`. At 24 kHz a
 * frame of whole samples passes through without a copy.
 */
import { createHash, type Hash } from 'node:crypto';
import { SAMPLE_RATE } from '../../../../session-core';
import { Resampler } from '../../../../platform/audio/resampler';
import { G711_RATE, G711Stream } from '../../../../platform/audio/g711';

/** Deepgram's `encoding` values served: raw pcm16, and the phone network's G.711. */
export type ListenEncoding = 'linear16' | 'mulaw' | 'alaw';

const EMPTY = Buffer.alloc(0);

export class ListenAudioInput {
  private readonly resampler: Resampler | null;
  private readonly g711: G711Stream | null;
  private readonly hash: Hash = createHash('sha256');
  private odd: number | null = null;
  private bytes = 0;

  constructor(
    private readonly sampleRate: number,
    encoding: ListenEncoding = 'linear16',
  ) {
    this.g711 = encoding === 'linear16' ? null : new G711Stream(encoding, 'in', SAMPLE_RATE);
    this.resampler = sampleRate === SAMPLE_RATE || this.g711 !== null ? null : new Resampler(sampleRate, SAMPLE_RATE);
  }

  /** Milliseconds of audio received so far, on the client's (and so the session's) timeline. */
  get receivedMs(): number {
    return this.g711 === null ? ((this.bytes >> 1) * 1000) / this.sampleRate : (this.bytes * 1000) / G711_RATE;
  }

  /** Seconds received, to the millisecond, for `Metadata.duration`. */
  get receivedSeconds(): number {
    return Math.round(this.receivedMs) / 1000;
  }

  /** Hex SHA-256 of every byte received. */
  sha256(): string {
    return this.hash.copy().digest('hex');
  }

  /** The next frame as pcm16 24 kHz (possibly empty). */
  push(frame: Buffer): Buffer {
    if (frame.length === 0) return EMPTY;
    this.hash.update(frame);
    this.bytes += frame.length;
    if (this.g711 !== null) return this.g711.push(frame);
    let whole = frame;
    if (this.odd !== null || frame.length % 2 !== 0) {
      const joined = this.odd === null ? frame : Buffer.concat([Buffer.of(this.odd), frame]);
      this.odd = joined.length % 2 === 0 ? null : joined[joined.length - 1];
      whole = this.odd === null ? joined : joined.subarray(0, joined.length - 1);
    }
    if (whole.length === 0) return EMPTY;
    return this.resampler === null ? whole : this.resampler.processPcm16(whole);
  }
}

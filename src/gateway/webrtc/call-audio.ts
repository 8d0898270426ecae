/**
 * A call's audio between RTP and the session: Opus at 48 kHz (or PCMU at 8 kHz where that is all the
 * client offered) in, pcm16 at 24 kHz to the session; the session's 24 kHz answer out, as one RTP
 * packet per 20 ms on the wall clock.
 */
import { OpusDecoder, OpusEncoder } from '../../../libs/opus';
import { Resampler } from '../../platform/audio/resampler';
import type { ClockPort, TimerHandle } from '../../session-core';
import { mulawDecode, mulawEncode, writeRtp, type RtpPacket } from './rtp';

export type CallCodec = { readonly name: 'opus'; readonly payloadType: number } | { readonly name: 'pcmu' };

const SESSION_RATE = 24000;
const FRAME_MS = 20;
/** Packets held for a late one before it counts as lost: 60 ms, the jitter a browser's own sender adds at most on a LAN. */
const REORDER_PACKETS = 3;
/** A jump this far is a new stream (the client's sender restarted), not loss to conceal. */
const RESYNC_GAP = 50;

const wireRate = (codec: CallCodec): number => (codec.name === 'opus' ? 48000 : 8000);

/** RTP in: reordered, lost packets concealed (Opus FEC, else PLC; silence for PCMU), decoded, resampled. */
export class InboundAudio {
  private readonly decoder: OpusDecoder | null;
  private readonly resampler: Resampler;
  private expected: number | null = null;
  private readonly held = new Map<number, RtpPacket>();
  private frameSamples: number;
  /** Packets lost (concealed) and dropped (late or duplicate), for the session's log. */
  lost = 0;
  late = 0;

  constructor(
    private readonly codec: CallCodec,
    private readonly sink: (pcm24k: Buffer) => void,
  ) {
    this.decoder = codec.name === 'opus' ? new OpusDecoder(48000) : null;
    this.resampler = new Resampler(wireRate(codec), SESSION_RATE);
    this.frameSamples = (wireRate(codec) * FRAME_MS) / 1000;
  }

  packet(packet: RtpPacket): void {
    if (!this.carries(packet.payloadType)) return;
    if (this.expected === null) this.expected = packet.sequence;
    const ahead = (packet.sequence - this.expected + 0x10000) & 0xffff;
    if (ahead >= 0x8000) {
      this.late++;
      return;
    }
    if (ahead > RESYNC_GAP) {
      this.held.clear();
      this.expected = packet.sequence;
    }
    this.held.set(packet.sequence, packet);
    this.release();
  }

  private carries(payloadType: number): boolean {
    return this.codec.name === 'opus' ? payloadType === this.codec.payloadType : payloadType === 0;
  }

  private release(): void {
    while (this.held.size > 0) {
      const next = this.held.get(this.expected!);
      if (next !== undefined) {
        this.held.delete(this.expected!);
        this.play(this.decode(next.payload));
      } else if (this.held.size >= REORDER_PACKETS) {
        this.lost++;
        const after = this.held.get((this.expected! + 1) & 0xffff) ?? null;
        this.play(this.conceal(after));
      } else {
        return;
      }
      this.expected = (this.expected! + 1) & 0xffff;
    }
  }

  private decode(payload: Buffer): Int16Array {
    if (this.decoder === null) return mulawDecode(payload);
    try {
      const pcm = this.decoder.decode(payload);
      this.frameSamples = pcm.length || this.frameSamples;
      return pcm;
    } catch {
      return this.conceal(null); // a corrupt packet is a lost one
    }
  }

  private conceal(next: RtpPacket | null): Int16Array {
    if (this.decoder === null) return new Int16Array(this.frameSamples);
    return this.decoder.conceal(this.frameSamples, next?.payload ?? null);
  }

  private play(pcm: Int16Array): void {
    const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    const resampled = this.resampler.processPcm16(bytes);
    if (resampled.length > 0) this.sink(resampled);
  }
}

export interface OutboundEvents {
  /** The first packet of a stretch of answer audio left. */
  started(): void;
  /** Everything queued has left (the answer played out). */
  stopped(): void;
}

/**
 * The session's answer audio out: queued as it comes (the session paces it, a frame ahead of its
 * play time), sent one 20 ms packet per 20 ms of wall clock. clear() drops the queue at once: the
 * client then hears at most the packet in flight.
 */
export class OutboundAudio {
  private readonly encoder: OpusEncoder | null;
  private readonly resampler: Resampler;
  private readonly frame: number;
  private readonly chunks: Int16Array[] = [];
  private queued = 0;
  private timer: TimerHandle | null = null;
  private nextAtMs = 0;
  private sequence = Math.floor(Math.random() * 0x10000);
  private timestamp = Math.floor(Math.random() * 0x100000000);
  private lastSentAtMs: number | null = null;
  private playing = false;

  constructor(
    private readonly codec: CallCodec,
    readonly ssrc: number,
    private readonly send: (packet: Buffer) => void,
    private readonly clock: ClockPort,
    private readonly events: OutboundEvents,
  ) {
    this.encoder = codec.name === 'opus' ? new OpusEncoder(48000) : null;
    this.resampler = new Resampler(SESSION_RATE, wireRate(codec));
    this.frame = (wireRate(codec) * FRAME_MS) / 1000;
  }

  get queuedMs(): number {
    return (this.queued / this.frame) * FRAME_MS;
  }

  play(pcm24k: Buffer): void {
    const samples = this.resampler.processPcm16(pcm24k);
    if (samples.length === 0) return;
    const chunk = new Int16Array(samples.length >> 1);
    for (let i = 0; i < chunk.length; i++) chunk[i] = samples.readInt16LE(i * 2);
    this.chunks.push(chunk);
    this.queued += chunk.length;
    if (this.timer === null) {
      this.nextAtMs = this.clock.now();
      this.tick();
    }
  }

  /** Drops what is queued (no `stopped`: the caller tells it was cleared); true when audio was playing. */
  clear(): boolean {
    const was = this.playing;
    this.close();
    this.playing = false;
    return was;
  }

  close(): void {
    this.chunks.length = 0;
    this.queued = 0;
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private tick(): void {
    this.timer = null;
    const now = this.clock.now();
    // A late timer sends what came due meanwhile, so the stream keeps its rate under load.
    while (this.nextAtMs <= now && this.queued > 0) {
      this.sendFrame(now);
      this.nextAtMs += FRAME_MS;
    }
    if (this.queued === 0) return this.stop();
    this.timer = this.clock.setTimer(() => this.tick(), this.nextAtMs - now);
  }

  private sendFrame(now: number): void {
    const pcm = this.take();
    const marker = !this.playing;
    if (marker && this.lastSentAtMs !== null) {
      // After a pause the timestamp tells the client how long it was, so its jitter buffer stays right.
      this.timestamp += Math.max(0, Math.round(((now - this.lastSentAtMs) * wireRate(this.codec)) / 1000) - this.frame);
    }
    if (marker) {
      this.playing = true;
      this.events.started();
    }
    const payload = this.encoder === null ? mulawEncode(pcm) : this.encoder.encode(pcm);
    const payloadType = this.codec.name === 'opus' ? this.codec.payloadType : 0;
    this.send(
      writeRtp({ payloadType, sequence: this.sequence, timestamp: this.timestamp, ssrc: this.ssrc, marker }, payload),
    );
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + this.frame) >>> 0;
    this.lastSentAtMs = now;
  }

  /** One frame from the queue, padded with silence at the end of the answer. */
  private take(): Int16Array {
    const out = new Int16Array(this.frame);
    let filled = 0;
    while (filled < this.frame && this.chunks.length > 0) {
      const chunk = this.chunks[0];
      const n = Math.min(chunk.length, this.frame - filled);
      out.set(chunk.subarray(0, n), filled);
      filled += n;
      if (n === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(n);
    }
    this.queued -= filled;
    return out;
  }

  private stop(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
    if (!this.playing) return;
    this.playing = false;
    this.events.stopped();
  }
}

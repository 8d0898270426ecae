/**
 * Re-frames input of any even length into exact 80 ms frames, carrying the remainder to the
 * next append. Whole frames inside an append are views of the caller's buffer (no copy); only a
 * frame that straddles two appends is assembled in a carry buffer, which is then handed out and
 * replaced, because engines may keep the frames they are given.
 */
import { FRAME_BYTES } from '../engine/engine.port';

export class InputFramer {
  private carry: Buffer | null = null;
  private carryLen = 0;

  /** Bytes waiting for the rest of their frame. */
  get carried(): number {
    return this.carryLen;
  }

  /** Appends `bytes`; every completed frame is pushed to `out` in order. */
  append(bytes: Buffer, out: Buffer[]): void {
    let offset = 0;
    if (this.carryLen > 0) {
      const take = Math.min(FRAME_BYTES - this.carryLen, bytes.length);
      bytes.copy(this.carryBuffer(), this.carryLen, 0, take);
      this.carryLen += take;
      offset = take;
      if (this.carryLen < FRAME_BYTES) return;
      out.push(this.carryBuffer());
      this.carry = null;
      this.carryLen = 0;
    }
    while (bytes.length - offset >= FRAME_BYTES) {
      out.push(bytes.subarray(offset, offset + FRAME_BYTES));
      offset += FRAME_BYTES;
    }
    if (offset < bytes.length) {
      bytes.copy(this.carryBuffer(), 0, offset);
      this.carryLen = bytes.length - offset;
    }
  }

  /** The final partial frame (at close), or null when input ended on a frame boundary. */
  takeRemainder(): Buffer | null {
    if (this.carryLen === 0 || this.carry === null) return null;
    const rest = this.carry.subarray(0, this.carryLen);
    this.carry = null;
    this.carryLen = 0;
    return rest;
  }

  private carryBuffer(): Buffer {
    if (this.carry === null) this.carry = Buffer.allocUnsafe(FRAME_BYTES);
    return this.carry;
  }
}

/**
 * pocketsphinx decoders, one per open stream. Loading a model takes about 250 ms and 90 MB, and
 * this pocketsphinx cannot share a loaded model between decoders (its language model caches
 * lookups inside the model, so concurrent use is unsafe), so finished streams hand their decoder
 * back for the next one instead of freeing it.
 */
import { PocketsphinxDecoder } from '../../../libs/pocketsphinx';

export class DecoderPool {
  private readonly idle: PocketsphinxDecoder[] = [];
  private readonly all = new Set<PocketsphinxDecoder>();
  private closed = false;

  constructor(private readonly load: () => Promise<PocketsphinxDecoder>) {}

  /** Decoders loaded so far (idle or in use). */
  get size(): number {
    return this.all.size;
  }

  async acquire(): Promise<PocketsphinxDecoder> {
    if (this.closed) throw new Error('decoder pool is closed');
    const ready = this.idle.pop();
    if (ready) return ready;
    const decoder = await this.load();
    this.all.add(decoder);
    if (this.closed) {
      await this.discard(decoder);
      throw new Error('decoder pool is closed');
    }
    return decoder;
  }

  release(decoder: PocketsphinxDecoder): void {
    if (this.closed || !this.all.has(decoder)) {
      void this.discard(decoder);
      return;
    }
    this.idle.push(decoder);
  }

  /** Loads decoders until `count` are idle. */
  async warm(count: number): Promise<void> {
    const missing = Math.max(0, count - this.idle.length);
    const loaded = await Promise.all(Array.from({ length: missing }, () => this.load()));
    for (const decoder of loaded) {
      this.all.add(decoder);
      this.release(decoder);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.all].map((decoder) => this.discard(decoder)));
  }

  private async discard(decoder: PocketsphinxDecoder): Promise<void> {
    this.all.delete(decoder);
    await decoder.free().catch(() => undefined);
  }
}

import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A value kept on disk as one JSON file, replaced atomically (written beside it, flushed to disk, then
 * renamed over it), so a crash leaves either the old value or the new one, never half of either. Saves
 * are coalesced: at most one write per `everyMs`, with the latest value.
 */
export class SnapshotFile<T> {
  private pending: (() => T) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly path: string,
    private readonly everyMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The saved value, or null when there is none (or it cannot be read). */
  load(): T | null {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(error);
      return null;
    }
  }

  /** Saves what `read()` gives within `everyMs`; `read` is called when the write happens. */
  save(read: () => T): void {
    this.pending = read;
    this.timer ??= setTimeout(() => this.flush(), this.everyMs);
  }

  /** Writes what waits now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const read = this.pending;
    this.pending = null;
    if (read === null) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      const fd = openSync(temporary, 'w');
      try {
        writeSync(fd, JSON.stringify(read()));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, this.path);
    } catch (error) {
      this.onError(error);
    }
  }

  remove(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
    try {
      rmSync(this.path, { force: true });
    } catch (error) {
      this.onError(error);
    }
  }
}

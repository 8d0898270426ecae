import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SnapshotFile } from './snapshot-file';

describe('SnapshotFile', () => {
  let dir: string;
  const errors: unknown[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'snapshot-'));
    errors.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('saves the latest value once per period, and loads it back', async () => {
    const file = new SnapshotFile<{ n: number }>(join(dir, 'sub', 'state.json'), 20, (e) => errors.push(e));
    let reads = 0;
    for (let n = 1; n <= 5; n++) file.save(() => (reads++, { n }));
    expect(file.load()).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(reads).toBe(1);
    expect(file.load()).toEqual({ n: 5 });
    expect(readdirSync(join(dir, 'sub'))).toEqual(['state.json']); // no temporary file left behind
    expect(errors).toEqual([]);
  });

  it('writes at once on flush, and removes the file', () => {
    const file = new SnapshotFile<number[]>(join(dir, 'state.json'), 10_000, (e) => errors.push(e));
    file.save(() => [1, 2]);
    file.flush();
    expect(file.load()).toEqual([1, 2]);
    file.remove();
    expect(existsSync(file.path)).toBe(false);
    expect(file.load()).toBeNull();
  });

  it('reports what it cannot read or write instead of throwing', () => {
    writeFileSync(join(dir, 'state.json'), '{not json');
    const broken = new SnapshotFile(join(dir, 'state.json'), 10, (e) => errors.push(e));
    expect(broken.load()).toBeNull();
    writeFileSync(join(dir, 'a-file'), '');
    const unwritable = new SnapshotFile(join(dir, 'a-file', 'state.json'), 10, (e) => errors.push(e));
    unwritable.save(() => 1);
    unwritable.flush();
    expect(errors).toHaveLength(2);
  });
});

import { spawnSync } from 'node:child_process';
import { HEAP_GROWING_PERCENT, tuneHeapForStreaming } from './heap-tuning';

describe('tuneHeapForStreaming', () => {
  it('sets a flag that this V8 knows (setFlagsFromString would ignore an unknown one silently)', () => {
    const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    expect(options).toContain('--heap-growing-percent');
    const run = spawnSync(process.execPath, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '-e', ''], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });

  it('applies at run time', () => {
    expect(() => tuneHeapForStreaming()).not.toThrow();
  });
});

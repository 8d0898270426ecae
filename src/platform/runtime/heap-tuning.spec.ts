import { spawnSync } from 'node:child_process';
import { HEAP_GROWING_PERCENT, HEAP_NODE_OPTIONS, SEMI_SPACE_MB, tuneHeapForStreaming } from './heap-tuning';

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

  it('passes node options that node accepts on its command line', () => {
    const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    expect(options).toContain('--max-semi-space-size');
    const run = spawnSync(process.execPath, [...HEAP_NODE_OPTIONS, '-e', ''], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(HEAP_NODE_OPTIONS).toContain(`--max-semi-space-size=${SEMI_SPACE_MB}`);
  });

  it('applies at run time', () => {
    expect(() => tuneHeapForStreaming()).not.toThrow();
  });
});

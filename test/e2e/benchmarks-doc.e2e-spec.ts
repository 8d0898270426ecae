import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { BENCHMARKS_DOC, readResults, renderBenchmarksDoc } from '../../bench/support/benchmarks-doc';
import { repoRoot } from '../../bench/support/report';

describe('docs/benchmarks.md', () => {
  const reports = readResults();

  it('is what the generator renders from the committed results (run `npm run bench:docs`)', () => {
    const committed = readFileSync(join(repoRoot(), BENCHMARKS_DOC), 'utf8');
    expect(committed).toBe(renderBenchmarksDoc(reports));
  });

  it('has a table for every case with a result', () => {
    expect(reports.length).toBeGreaterThan(0);
    const doc = renderBenchmarksDoc(reports);
    for (const report of reports) expect(doc).toContain(`## ${report.name}\n`);
  });

  it('changes when a figure in the results changes', () => {
    const socket = reports.find((r) => r.name === 'socket');
    expect(socket).toBeDefined();
    const changed = structuredClone(socket!) as { results: { atTarget: { latencyMs: { p99: number } } } };
    changed.results.atTarget.latencyMs.p99 = 987.6;
    const doc = renderBenchmarksDoc(reports.map((r) => (r === socket ? changed : r)));
    expect(doc).toContain('| 987.6 |');
    expect(doc).not.toBe(renderBenchmarksDoc(reports));
  });

  it('names no folder of the machine that ran the benchmarks', () => {
    const dir = join(repoRoot(), 'bench', 'results');
    const texts = [...reports.map((r) => JSON.stringify(r)), readFileSync(join(dir, 'summary.json'), 'utf8')];
    for (const text of texts) expect(text).not.toMatch(/"(?:file:\/\/)?\/(?:work|tmp|home|root|Users|var)\//);
  });
});

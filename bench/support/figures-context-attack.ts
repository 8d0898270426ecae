/** docs/benchmarks.md figures of the context-attack case and its run on the code before the budget (see figures.ts). */
import type { CaseFigures, Json } from './figures';

export function contextAttackFigures(r: Json, t: Json): CaseFigures {
  return {
    rows: [
      {
        figure: `/healthz p99 during the attack (${r.sessions} sessions), ms`,
        value: r.healthzMs?.p99,
        baseline: r.healthzQuietMs?.p99,
      },
      {
        figure: '/healthz max, ms',
        value: r.healthzMs?.max,
        baseline: r.healthzQuietMs?.max,
        target: `< ${t.healthzMaxUnderMs}`,
      },
      { figure: 'RSS per attacking session, MB', value: r.rssPerSessionMb, target: `< ${t.rssPerSessionUnderMb}` },
      { figure: 'largest chat request, bytes', value: r.upstream?.maxRequestBytes, target: `≤ ${t.maxRequestBytes}` },
      { figure: 'mean chat request, bytes', value: r.upstream?.meanRequestBytes },
      { figure: 'chat requests (responses)', value: r.upstream?.requests },
      { figure: 'sent upstream in all, MB', value: r.upstream?.totalMb },
      { figure: 'process lived', value: r.processLived, target: 'true' },
    ],
    extra: [],
  };
}

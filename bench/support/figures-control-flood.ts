/** docs/benchmarks.md figures of the control-flood case (see figures.ts). */
import type { CaseFigures, Json } from './figures';

export function controlFloodFigures(r: Json, t: Json): CaseFigures {
  const per: Json = r.perSession ?? {};
  return {
    rows: [
      {
        figure: 'retained per session (heap + Buffers after GC), KiB',
        value: per.during?.retainedKib,
        baseline: per.quiet?.retainedKib,
        target: `added < ${t.addedRetainedKibPerSession}`,
      },
      { figure: 'RSS per session, KiB', value: per.during?.rssKib, baseline: per.quiet?.rssKib },
      { figure: 'retained per session after the policy closes, KiB', value: per.afterClose?.retainedKib },
      { figure: `control messages a second (${r.sessions} sessions)`, value: r.messagesPerSecond },
      { figure: 'service CPU per 1,000 control messages, s', value: r.serviceCpuSecondsPerThousandMessages },
      { figure: 'sockets the flood closed', value: r.closedByFlood, target: `${t.closedByFlood}` },
      { figure: 'sockets closed 1008 past the limit', value: r.policyCloses, target: `${t.policyCloses}` },
    ],
    extra: [],
  };
}

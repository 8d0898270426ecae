/** docs/benchmarks.md figures of the end-of-turn, meter and replicas cases (see figures.ts). */
import type { CaseFigures, Json } from './figures';

export function endOfTurnFigures(r: Json, t: Json): CaseFigures {
  const row = (part: 'heldOut' | 'tune', label: string) => {
    const model = r[part]?.model ?? {};
    const fixed = r[part]?.fixedSilence500 ?? {};
    const held = part === 'heldOut';
    return [
      {
        figure: `${label}: complete turns, end of turn p50, ms`,
        value: model.complete?.p50,
        baseline: fixed.complete?.p50,
        ...(held ? { target: `≤ ${t.heldOutCompleteP50AtMostMs}` } : {}),
      },
      {
        figure: `${label}: complete turns, end of turn p95, ms`,
        value: model.complete?.p95,
        baseline: fixed.complete?.p95,
      },
      {
        figure: `${label}: complete turns, end of turn max, ms`,
        value: model.complete?.max,
        baseline: fixed.complete?.max,
        ...(held ? { target: `≤ ${t.heldOutCompleteMaxAtMostMs}` } : {}),
      },
      {
        figure: `${label}: false end of turn on pauses (${model.pausedTurns ?? '—'} turns)`,
        value: model.falseEndOnPauses,
        baseline: fixed.falseEndOnPauses,
        ...(held ? { target: `≤ ${t.heldOutFalseEndOnPausesAtMost}` } : {}),
      },
    ];
  };
  return {
    rows: [
      ...row('heldOut', 'held out'),
      ...row('tune', 'tuned on'),
      {
        figure: 'same audio, other batchings: EndOfTurn spread on the audio timeline, ms',
        value: r.sameAudio?.maxSpreadOnAudioMs,
        target: `≤ ${t.sameAudioSpreadAtMostMs}`,
      },
    ],
    extra: [],
  };
}

export function meterFigures(r: Json, t: Json): CaseFigures {
  const by: Json[] = r.byInterval ?? [];
  const every = (frames: number) => by.find((b) => b.frames === frames) ?? {};
  return {
    rows: [
      {
        figure: `share of a core for ${r.sessions} sessions, every 10 frames`,
        value: every(10).cores,
        baseline: every(62).cores,
        target: `≤ ${t.coreShareEvery10Frames}`,
      },
      {
        figure: 'CPU per batch (service + database), µs',
        value: every(10).cpuPerBatchUs?.total,
        baseline: every(62).cpuPerBatchUs?.total,
      },
    ],
    extra: [],
  };
}

export function replicaFigures(r: Json, t: Json): CaseFigures {
  const d = r.deleteToCloseMs ?? {};
  return {
    rows: [
      { figure: 'DELETE → close across replicas p50, ms', value: d.acrossReplicas?.p50, baseline: d.sameReplica?.p50 },
      {
        figure: 'DELETE → close across replicas p99, ms',
        value: d.acrossReplicas?.p99,
        baseline: d.sameReplica?.p99,
        target: `< ${t.deleteAcrossReplicasP99Ms}`,
      },
      { figure: '50 at once, p99, ms', value: d.acrossReplicas50AtOnce?.p99 },
      { figure: 'heartbeat only p50, ms', value: d.heartbeatOnly?.p50 },
      {
        figure: 'REST throughput with LISTEN/NOTIFY ÷ without',
        value: r.listenNotifyCost?.restThroughputRatio,
        target: t.listenNotifyRatioWithinNoise,
      },
      {
        figure: 'socket throughput with LISTEN/NOTIFY ÷ without',
        value: r.listenNotifyCost?.socketThroughputRatio,
        target: t.listenNotifyRatioWithinNoise,
      },
    ],
    extra: [],
  };
}

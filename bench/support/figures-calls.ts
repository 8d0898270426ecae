/** docs/benchmarks.md figures of the webrtc and telephony cases (see figures.ts): calls beside 24 kHz sockets. */
import type { CaseFigures, ExtraTable, Json } from './figures';

/** Every step of one case: path, sessions, CPU, voice to voice, turns, load. */
function stepsTable(steps: Json[]): ExtraTable {
  return {
    title: 'Each step (the service’s CPU over the window; voice to voice of the turns spoken in it)',
    columns: [
      'path',
      'sessions',
      'CPU s per session-second',
      'sessions per core',
      'voice to voice p50, ms',
      'p90, ms',
      'turns answered',
      'ended',
      'setups retried',
      'service RSS, MB',
      'load (1 min)',
    ],
    rows: steps.map((s) => [
      s.path,
      s.sessions,
      s.cpuSecondsPerSessionSecond,
      s.sessionsPerCore,
      s.voiceToVoiceMs?.p50,
      s.voiceToVoiceMs?.p90,
      s.turnsSpoken === undefined ? undefined : `${s.turnsAnswered}/${s.turnsSpoken}`,
      s.sessionsEnded,
      s.setupRetries,
      s.serviceRssMb,
      s.loadAverage,
    ]),
  };
}

/** Rows for each session count: the call path's figure beside the 24 kHz socket's of the same count. */
function callRows(steps: Json[], path: string, label: string): CaseFigures['rows'] {
  const counts = [...new Set(steps.filter((s) => s.path === path).map((s) => s.sessions as number))];
  const rows = counts.flatMap((count) => {
    const call = steps.find((s) => s.path === path && s.sessions === count) ?? {};
    const socket = steps.find((s) => s.path === 'websocket' && s.sessions === count) ?? {};
    return [
      {
        figure: `${label}: CPU s per call-second at ${count}`,
        value: call.cpuSecondsPerSessionSecond,
        baseline: socket.cpuSecondsPerSessionSecond,
      },
      { figure: `${label}: calls per core at ${count}`, value: call.sessionsPerCore, baseline: socket.sessionsPerCore },
      {
        figure: `${label}: voice to voice p50 at ${count}, ms (load ${call.loadAverage ?? '?'})`,
        value: call.voiceToVoiceMs?.p50,
        baseline: socket.voiceToVoiceMs?.p50,
      },
    ];
  });
  const lo = Math.min(...counts);
  const hi = Math.max(...counts);
  if (counts.length < 2) return rows;
  return [
    ...rows,
    {
      figure: `${label}: CPU s per call-second added by each call from ${lo} to ${hi} (the service's fixed cost left out)`,
      value: marginal(steps, path, lo, hi),
      baseline: marginal(steps, 'websocket', lo, hi),
    },
  ];
}

/** (CPU at `hi` sessions − CPU at `lo`) / (hi − lo), in CPU seconds per session-second. */
function marginal(steps: Json[], path: string, lo: number, hi: number): number | undefined {
  const total = (count: number) => {
    const step = steps.find((s) => s.path === path && s.sessions === count);
    return step === undefined ? undefined : (step.cpuSecondsPerSessionSecond as number) * count;
  };
  const [a, b] = [total(lo), total(hi)];
  return a === undefined || b === undefined ? undefined : Math.round(((b - a) / (hi - lo)) * 10000) / 10000;
}

export function webrtcFigures(r: Json): CaseFigures {
  const steps: Json[] = Array.isArray(r.steps) ? r.steps : [];
  return { rows: callRows(steps, 'webrtc', 'WebRTC'), extra: steps.length > 0 ? [stepsTable(steps)] : [] };
}

export function telephonyFigures(r: Json): CaseFigures {
  const recognition: Json[] = Array.isArray(r) ? r : Array.isArray(r.recognition) ? r.recognition : [];
  const steps: Json[] = Array.isArray(r.calls?.steps) ? r.calls.steps : [];
  const extra: ExtraTable[] = [];
  if (recognition.length > 0) {
    extra.push({
      title: 'Recognition and end of turn at 24 kHz and over a G.711 line (the same sentences)',
      columns: ['corpus', 'line', 'words', 'WER', 'turns found', 'speech end found p50, ms after the real end'],
      rows: recognition.map((x) => [
        x.corpus,
        x.line,
        x.words,
        x.wer,
        `${x.turns}/${x.utterances}`,
        x.endOfTurnMs?.p50,
      ]),
    });
  }
  if (steps.length > 0) extra.push(stepsTable(steps));
  return { rows: callRows(steps, 'twilio', 'phone (Twilio)'), extra };
}

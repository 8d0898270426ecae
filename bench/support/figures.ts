/**
 * The figures of each case's report that docs/benchmarks.md shows, each beside the baseline it was
 * measured against in the same run and the target it is judged by. A case not listed here still gets
 * its headline and targets; a case that adds figures to its results adds an extractor here.
 */
import { telephonyFigures, webrtcFigures } from './figures-calls';
import { contextAttackFigures } from './figures-context-attack';
import { controlFloodFigures } from './figures-control-flood';
import { endOfTurnFigures, meterFigures, replicaFigures } from './figures-turns-and-replicas';
import { conversationFigures, voiceFigures } from './figures-voice';
import type { BenchReport } from './report';

export interface FigureRow {
  figure: string;
  value: Cell;
  /** The same figure for the baseline measured in the same run, when the case has one. */
  baseline?: Cell;
  target?: string;
}

export interface ExtraTable {
  title: string;
  columns: string[];
  rows: Cell[][];
}

export interface CaseFigures {
  rows: FigureRow[];
  extra: ExtraTable[];
}

type Cell = number | string | boolean | null | undefined;
// Results are JSON of the case's own shape; the extractors read them defensively.
export type Json = Record<string, any>;

const EXTRACTORS: Record<string, (results: Json, targets: Json) => CaseFigures> = {
  socket: socketFigures,
  'socket-before': socketFigures,
  rest: restFigures,
  engine: engineFigures,
  cascade: cascadeFigures,
  export: exportFigures,
  remote: remoteFigures,
  'socket-dialects': dialectFigures,
  'end-of-turn': endOfTurnFigures,
  meter: meterFigures,
  replicas: replicaFigures,
  voice: voiceFigures,
  'control-flood': controlFloodFigures,
  conversation: conversationFigures,
  'context-attack': contextAttackFigures,
  'context-attack-before': contextAttackFigures,
  webrtc: webrtcFigures,
  telephony: telephonyFigures,
};

/** What each case measures its figures against, side by side in the same run. */
export const BASELINES: Record<string, string> = {
  socket: 'a bare `ws` relay speaking the same script (bench/support/socket/relay.child.ts)',
  'socket-before':
    'the same relay; the service as it was before the shared clock (a timer per session), kept to compare',
  rest: 'a bare Fastify route doing one INSERT into the same PostgreSQL',
  remote: 'the same client talking to the fake engine directly, not through the gateway',
  'socket-dialects': 'the live dialect',
  'end-of-turn': 'a fixed 500 ms silence',
  meter: 'metering every 62 frames',
  replicas: 'the same DELETE on the replica that holds the socket',
  voice: 'the embedded engine ending turns on a fixed 500 ms of silence (`end_of_turn: null`)',
  'control-flood': 'the same sessions open and quiet, before the flood',
  'context-attack':
    '/healthz with the same sessions open and quiet, just before the attack (context-attack-before: the same attack on main before the budget, cefb874)',
  'context-attack-before': 'the same attack on main as it was before the context budget (cefb874), kept to compare',
  webrtc: 'Realtime sockets at 24 kHz (`/v1/realtime`) on the same service, cascade and script, just after the calls',
  telephony:
    'Realtime sockets at 24 kHz (`/v1/realtime`) on the same service, cascade and script, just after the phone calls',
  conversation:
    'the live voicechat path (`/v1/live/sessions`): the same cascade, clip and 240 ms VAD silence, its turns alternating with the conversation path’s',
};

export function figuresOf(report: Partial<BenchReport>): CaseFigures {
  const extractor = report.name ? EXTRACTORS[report.name] : undefined;
  const results = (report.results ?? {}) as Json;
  const targets = (report.targets ?? {}) as Json;
  if (extractor) return extractor(results, targets);
  return {
    rows: Object.entries(targets).map(([name, target]) => ({ figure: name, value: null, target: String(target) })),
    extra: [],
  };
}

function socketFigures(r: Json, t: Json): CaseFigures {
  const at = r.atTarget ?? {};
  const steps: Json[] = Array.isArray(r.steps) ? r.steps : [];
  return {
    rows: [
      { figure: 'sessions with p99 under the limit', value: r.maxSessionsAtP99, target: `≥ ${t.sessions}` },
      {
        figure: `p50 frame latency at ${at.sessions} sessions, ms`,
        value: at.latencyMs?.p50,
        baseline: at.relayLatencyMs?.p50,
      },
      {
        figure: `p99 frame latency at ${at.sessions} sessions, ms`,
        value: at.latencyMs?.p99,
        baseline: at.relayLatencyMs?.p99,
        target: `< ${t.p99Ms}`,
      },
      {
        figure: 'p99 added latency (service − relay), ms',
        value: at.addedLatencyMs?.p99,
        target: t.addedP99Ms !== undefined ? `< ${t.addedP99Ms}` : undefined,
      },
      ...(at.worstOutputLatenessP99Ms !== undefined
        ? [
            {
              figure: `output lateness p99 at ${at.sessions} sessions (worst run), ms`,
              value: at.worstOutputLatenessP99Ms,
              target: t.outputLatenessP99Ms !== undefined ? `< ${t.outputLatenessP99Ms}` : undefined,
            },
            {
              figure: `event-loop delay p99 at ${at.sessions} sessions, ms`,
              value: at.serverEventLoop?.delayP99Ms,
              baseline: at.relayEventLoop?.delayP99Ms,
            },
          ]
        : []),
      {
        figure: 'CPU per frame, µs',
        value: at.cpuPerFrameUs,
        baseline: at.relayCpuPerFrameUs,
        target: `≤ ${t.cpuPerFrameRatioVsRelay}× relay`,
      },
      { figure: 'CPU per frame ÷ relay', value: at.cpuPerFrameRatio, target: `≤ ${t.cpuPerFrameRatioVsRelay}` },
      { figure: 'CPU per frame ÷ relay, with the database', value: at.cpuPerFrameRatioWithDatabase },
      { figure: 'heap per session, KB', value: at.memoryPerSessionKb },
      { figure: 'RSS per session, KB', value: at.rssPerSessionKb },
    ],
    extra: [
      {
        title: 'Curve (service, with the bare ws relay beside it)',
        columns: [
          'sessions',
          'run',
          'p99 ms',
          'relay p99 ms',
          'added p99 ms',
          'output late p99 ms',
          'loop delay p99 ms',
          'relay loop delay p99 ms',
          'timers',
          'CPU µs/frame',
          'relay µs/frame',
          'ratio',
          'heap KB/session',
          'passed',
        ],
        rows: steps.map((s) => [
          s.sessions,
          s.run ?? 1,
          s.service?.latencyMs?.p99,
          s.relay?.latencyMs?.p99,
          s.service && s.relay ? tenth(s.service.latencyMs.p99 - s.relay.latencyMs.p99) : null,
          s.service?.outputLatenessMs?.p99,
          s.service?.serverEventLoop?.delayP99Ms,
          s.relay?.serverEventLoop?.delayP99Ms,
          s.service?.serverEventLoop?.timersMean ?? null,
          s.service?.cpu?.perFrameUs,
          s.relay?.cpu?.perFrameUs,
          s.cpuRatio,
          s.service?.memory?.perSessionKb,
          s.service?.passed,
        ]),
      },
    ],
  };
}

function restFigures(r: Json, t: Json): CaseFigures {
  const s = r.summary ?? {};
  const rows: FigureRow[] = [
    {
      figure: 'client secrets per second',
      value: s.service?.requestsPerSecond,
      baseline: s.baseline?.requestsPerSecond,
      target: `≥ ${t.ratioAtLeast}× baseline`,
    },
    {
      figure: 'ratio to the baseline (median round)',
      value: s.service?.medianRoundRatio,
      target: `≥ ${t.ratioAtLeast}`,
    },
    { figure: 'p50 latency, ms', value: s.service?.latencyMs?.p50, baseline: s.baseline?.latencyMs?.p50 },
    {
      figure: 'p99 latency, ms',
      value: s.service?.latencyMs?.p99,
      baseline: s.baseline?.latencyMs?.p99,
      target: `< ${t.serviceP99BelowMs}`,
    },
  ];
  if (s.service?.cpuUsPerRequest) {
    rows.push(
      {
        figure: 'server CPU per request, µs',
        value: s.service.cpuUsPerRequest.server,
        baseline: s.baseline?.cpuUsPerRequest?.server,
      },
      {
        figure: 'database CPU per request, µs',
        value: s.service.cpuUsPerRequest.database,
        baseline: s.baseline?.cpuUsPerRequest?.database,
      },
    );
  }
  for (const [key, label] of [
    ['serviceBusyTenants', 'busy tenants'],
    ['serviceOneKey', 'one key'],
  ] as const) {
    if (!s[key]) continue;
    rows.push(
      { figure: `${label}: per second`, value: s[key].requestsPerSecond, baseline: s.baseline?.requestsPerSecond },
      { figure: `${label}: p99 latency, ms`, value: s[key].latencyMs?.p99, baseline: s.baseline?.latencyMs?.p99 },
    );
  }
  return { rows, extra: [] };
}

function engineFigures(r: Json, t: Json): CaseFigures {
  const single = r.singleStream ?? {};
  const corpora: Json[] = r.throughput?.corpora ?? [];
  const rows: FigureRow[] = [
    {
      figure: 'first partial p50, ms',
      value: single.firstPartialMs?.p50,
      target: t.firstPartialP50Ms !== undefined ? `< ${t.firstPartialP50Ms}` : undefined,
    },
    {
      figure: 'first partial p95, ms',
      value: single.firstPartialMs?.p95,
      target: t.firstPartialP95Ms !== undefined ? `< ${t.firstPartialP95Ms}` : undefined,
    },
    {
      figure: 'final beyond the silence p95, ms',
      value: single.finalBeyondSilenceMs?.p95,
      target: t.finalBeyondSilenceP95Ms !== undefined ? `< ${t.finalBeyondSilenceP95Ms}` : undefined,
    },
    {
      figure: 'real-time streams kept up',
      value: r.concurrency?.maxRealtimeStreams,
      target: t.concurrentStreams !== undefined ? `≥ ${t.concurrentStreams}` : undefined,
    },
    {
      figure: 'real-time factor at the stream limit (CPU s per audio s per stream)',
      value: r.concurrency?.atLimit?.realTimeFactor,
    },
    { figure: 'real-time factor, one stream fed at full speed (CPU s per audio s)', value: r.throughput?.rtfCpu },
  ];
  for (const c of corpora) {
    const target = c.corpus === 'librivox' && t.librivoxWer !== undefined ? `≤ ${t.librivoxWer}` : undefined;
    rows.push({ figure: `WER ${c.corpus} (${c.words} words)`, value: c.wer, target });
  }
  return { rows, extra: [] };
}

function cascadeFigures(r: Json, t: Json): CaseFigures {
  return {
    rows: [
      { figure: 'final → first audio p50, ms', value: r.finalToFirstAudioMs?.p50 },
      {
        figure: 'final → first audio p99, ms',
        value: r.finalToFirstAudioMs?.p99,
        target: `< ${t.finalToFirstAudioP99Ms}`,
      },
      {
        figure: 'interrupt → chat upstream closed p99, ms',
        value: r.interruptToChatClosedMs?.p99,
        target: `< ${t.interruptToUpstreamClosedP99Ms}`,
      },
      {
        figure: 'interrupt → speech upstream closed p99, ms',
        value: r.interruptToSpeechClosedMs?.p99,
        target: `< ${t.interruptToUpstreamClosedP99Ms}`,
      },
      { figure: 'CPU per turn, ms', value: r.cpuMsPerTurn },
    ],
    extra: [],
  };
}

function exportFigures(r: Json, t: Json): CaseFigures {
  return {
    rows: [
      { figure: 'events per second (median)', value: r.medianEventsPerSecond, target: t.eventsPerSecond },
      { figure: 'peak RSS growth, MB', value: r.peakGrowthMb, target: t.peakGrowthMb },
    ],
    extra: [],
  };
}

function remoteFigures(r: Json, t: Json): CaseFigures {
  const rounds: Json[] = r.latency?.rounds ?? [];
  const direct = rounds[0]?.direct?.[0];
  return {
    rows: [
      {
        figure: 'frame p99 through the gateway (first round), ms',
        value: rounds[0]?.gateway?.[0]?.p99,
        baseline: direct?.p99,
      },
      { figure: 'added frame p99, ms', value: r.latency?.frame?.addedP99, target: `< ${t.addedP99Ms}` },
      { figure: 'added final p99, ms', value: r.latency?.final?.addedP99, target: `< ${t.addedP99Ms}` },
      { figure: 'streams relayed', value: r.load?.relayed, target: `≥ ${t.streams}` },
      { figure: 'answered share', value: r.load?.answeredShare, target: `≥ ${t.answeredShare}` },
      { figure: 'gateway CPU per frame, µs', value: r.load?.cpuPerFrameUs },
      { figure: 'CPU steal during the rounds, ms/s', value: r.latency?.stealMsPerSecond },
    ],
    extra: [],
  };
}

function dialectFigures(r: Json, t: Json): CaseFigures {
  const summary: Json = r.summary ?? {};
  const live = summary.live ?? {};
  const rows: FigureRow[] = [];
  for (const [dialect, s] of Object.entries(summary) as [string, Json][]) {
    const isLive = dialect === 'live';
    rows.push(
      {
        figure: `${dialect}: CPU per frame, µs`,
        value: s.cpuPerFrameUs,
        baseline: isLive ? undefined : live.cpuPerFrameUs,
        target: isLive ? undefined : `≤ ${t.cpuRatioToLiveAtMost}× live`,
      },
      { figure: `${dialect}: word p99, ms`, value: s.wordLatencyP99Ms, target: `< ${t.wordLatencyP99BelowMs}` },
    );
  }
  return { rows, extra: [] };
}

function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/** docs/benchmarks.md figures of the voice case (see figures.ts). */
import type { CaseFigures, Json } from './figures';

export function voiceFigures(r: Json, t: Json): CaseFigures {
  const defaults = r.embedded?.defaults ?? {};
  const fixed = r.embedded?.fixedSilence500 ?? {};
  const cascade = r.cascade ?? {};
  const barge = r.bargeIn?.embedded ?? {};
  const v2v = defaults.voiceToVoiceMs ?? {};
  const parts: Json = defaults.partsMs ?? {};
  const fixedParts: Json = fixed.partsMs ?? {};
  const gateway: Json = cascade.gatewayPartsMs ?? {};
  return {
    rows: [
      {
        figure: `voice to voice p50, ms (${v2v.n ?? '—'} turns)`,
        value: v2v.p50,
        baseline: fixed.voiceToVoiceMs?.p50,
        target: `≤ ${t.voiceToVoiceP50AtMostMs}`,
      },
      {
        figure: 'voice to voice p95, ms',
        value: v2v.p95,
        baseline: fixed.voiceToVoiceMs?.p95,
        ...(t.voiceToVoiceP95AtMostMs === undefined ? {} : { target: `≤ ${t.voiceToVoiceP95AtMostMs}` }),
      },
      { figure: 'answers prepared on an eager end of turn', value: defaults.preparedAnswers },
      {
        figure: 'cascade: gateway share p50, ms',
        value: cascade.gatewayShareMs?.p50,
        target: `≤ ${t.cascadeGatewayShareP50AtMostMs}`,
      },
      { figure: 'cascade: gateway share p95, ms', value: cascade.gatewayShareMs?.p95 },
      { figure: 'cascade: voice to voice p50, ms', value: cascade.voiceToVoiceMs?.p50 },
      {
        figure: `barge-in p95, ms (${barge.latencyMs?.n ?? '—'} barge-ins)`,
        value: barge.latencyMs?.p95,
        target: `≤ ${t.bargeInP95AtMostMs}`,
      },
      { figure: 'barge-in p50, ms', value: barge.latencyMs?.p50 },
      { figure: 'barge-in: speech suspected (answer held) p50 / p95, ms', value: pair(barge.suspectedMs) },
      { figure: 'barge-in: speech onset confirmed p50 / p95, ms', value: pair(barge.onsetMs) },
      { figure: 'suspicions of speech ruled out (answer held, then let go)', value: barge.suspicionsRuledOut },
      { figure: 'barge-in: answer audio the client still held p95, ms', value: barge.heldAtClientMs?.p95 },
    ],
    extra: [
      {
        title: 'Voice to voice by part, embedded engine, p50 / p95 ms (baseline: fixed 500 ms silence)',
        columns: ['part', 'defaults', 'baseline'],
        rows: [
          ['end of turn', pair(parts.endOfTurn), pair(fixedParts.endOfTurn)],
          ['recognition final', pair(parts.recognitionFinal), pair(fixedParts.recognitionFinal)],
          ['answer (text)', pair(parts.answer), pair(fixedParts.answer)],
          ['synthesis, first chunk', pair(parts.synthesis), pair(fixedParts.synthesis)],
          ['transport', pair(parts.transport), pair(fixedParts.transport)],
          ['quiet lead-in', pair(parts.leadIn), pair(fixedParts.leadIn)],
        ],
      },
      {
        title: "Cascade gateway's share by part, p50 / p95 ms (fake chat and speech servers answering at once)",
        columns: ['part', 'ms'],
        rows: [
          ['recognition final', pair(gateway.recognitionFinal)],
          ['final → chat request at the fake', pair(gateway.toChat)],
          ['chat answer → speech request at the fake', pair(gateway.toSpeech)],
          ['first speech bytes → first output chunk', pair(gateway.toAudio)],
          ['transport', pair(gateway.transport)],
          ['quiet lead-in', pair(gateway.leadIn)],
          [
            "the fakes' own time (chat / speech), p50",
            `${cascade.fakesMs?.chat?.p50} / ${cascade.fakesMs?.speech?.p50}`,
          ],
        ],
      },
    ],
  };
}

function pair(d: Json | undefined): string | null {
  return d && d.p50 !== undefined && d.p50 !== null ? `${d.p50} / ${d.p95}` : null;
}

/** The conversation case: the Realtime conversation path, the live voicechat path as its baseline. */
export function conversationFigures(r: Json, t: Json): CaseFigures {
  const c: Json = r.conversation ?? {};
  const l: Json = r.live ?? {};
  const cs: Json = c.sessionLayerStagesMs ?? {};
  const ls: Json = l.sessionLayerStagesMs ?? {};
  const triple = (d: Json | undefined) =>
    d && d.p50 !== undefined && d.p50 !== null ? `${d.p50} / ${d.p95} / ${d.p99}` : null;
  return {
    rows: [
      {
        figure: `session layer's addition p99, ms (${c.sessionLayerMs?.count ?? '—'} turns)`,
        value: c.sessionLayerMs?.p99,
        baseline: l.sessionLayerMs?.p99,
        target: `< ${t.conversationSessionLayerP99UnderMs}`,
      },
      {
        figure: "session layer's addition p50 / p95, ms",
        value: pair(c.sessionLayerMs),
        baseline: pair(l.sessionLayerMs),
      },
      {
        figure: 'voice to voice p50 / p95 / p99, ms',
        value: triple(c.voiceToVoiceMs),
        baseline: triple(l.voiceToVoiceMs),
      },
      {
        figure: 'end-of-turn wait (VAD silence) p50 / p99, ms',
        value: `${c.endOfTurnWaitMs?.p50} / ${c.endOfTurnWaitMs?.p99}`,
        baseline: `${l.endOfTurnWaitMs?.p50} / ${l.endOfTurnWaitMs?.p99}`,
      },
      {
        figure: "the upstreams' own time p50 / p99, ms",
        value: `${c.upstreamsMs?.p50} / ${c.upstreamsMs?.p99}`,
        baseline: `${l.upstreamsMs?.p50} / ${l.upstreamsMs?.p99}`,
      },
      { figure: 'turns that failed', value: c.failures?.length, baseline: l.failures?.length },
      {
        figure: 'event-loop delay (beyond its 10 ms sampling) p50 / p99 / max over the run, ms',
        value: `${r.eventLoopDelayMs?.p50} / ${r.eventLoopDelayMs?.p99} / ${r.eventLoopDelayMs?.max}`,
      },
    ],
    extra: [
      {
        title: "The session layer's addition by stage, p50 / p95 / p99 ms",
        columns: ['stage', 'conversation', 'live'],
        rows: [
          ['turn-ending chunk sent → speech_stopped', triple(cs.toSpeechStopped), triple(ls.toSpeechStopped)],
          ['speech_stopped → respond() (conversation only)', triple(c.speechStoppedToRespondMs), '—'],
          ['speech_stopped → chat request at the fake', triple(cs.toChat), triple(ls.toChat)],
          ['chat answer → speech request at the fake', triple(cs.toSpeech), triple(ls.toSpeech)],
          ['first speech bytes → engine output audio', triple(cs.toEngineAudio), triple(ls.toEngineAudio)],
          ['engine output audio → first delta at the client', triple(cs.transport), triple(ls.transport)],
        ],
      },
    ],
  };
}

/**
 * Benchmark of the cascaded voice agent's own costs, with upstreams that answer at once (fake chat
 * and speech servers on local sockets, in this process) and the scripted engine as the listener, so
 * what is measured is the cascade: its HTTP clients, SSE parsing, sentence splitting and voice.
 *
 *   npm run build && node dist/bench/cascade.bench.js [--quick]
 *
 * 1. Added latency per turn: from the listener's final transcript to the chat request arriving
 *    upstream, and to the first output audio (chat answer and its first sentence's speech included).
 * 2. Barge-in: from interrupt() to each upstream seeing its request closed (chat generation and
 *    speech both in flight).
 * 3. CPU per turn (this process, fakes included: an upper bound on the cascade's share).
 * Targets: first audio p99 < 50 ms after the final transcript (the upstreams' own time excluded);
 * upstream requests closed p99 < 200 ms after barge-in (the issue's bound for output to stop).
 * Results: bench/results/cascade.json.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { createCascadeEngine } from '../src/engines/cascade/cascade.engine';
import { cascadeEngineOptions, parseCascadeSettings } from '../src/engines/cascade/cascade.options';
import { startFakeChatServer, type ChatPlan } from '../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer, type SpeechPlan } from '../src/engines/cascade/testing/fake-speech-server';
import type { EngineEvent, EngineStream, EngineStreamConfig } from '../src/session-core';
import { ScriptedEngine } from '../src/engines/scripted/scripted.engine';
import { round, writeReport } from './support/report';
import { distribution } from './support/stats';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 40 : 300;
const BARGE_INS = quick ? 20 : 100;

const CONFIG: EngineStreamConfig = {
  sessionId: 'sess_bench',
  type: 'live',
  model: 'vendor-voicechat',
  language: 'en',
  voice: 'aria',
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 400, prefixPaddingMs: 0 },
};

const frame = (loud: boolean) => {
  const pcm = Buffer.alloc(3840);
  if (loud) for (let i = 0; i < 1920; i++) pcm.writeInt16LE(i % 2 ? 4000 : -4000, i * 2);
  return pcm;
};
const SPEECH = Array.from({ length: 10 }, () => frame(true));
const SILENCE = Array.from({ length: 6 }, () => frame(false));

async function main(): Promise<void> {
  let chatPlan: ChatPlan = { kind: 'reply', pieces: [] };
  let speechPlan: SpeechPlan = { msPerChar: 10, chunkMs: 100, chunkEveryMs: 0 };
  const chat = await startFakeChatServer(() => chatPlan);
  const speech = await startFakeSpeechServer(() => speechPlan);
  const settings = parseCascadeSettings({
    chat: { url: chat.baseUrl, model: 'bench', timeoutMs: 5000 },
    speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
    historyMessages: 4,
  });
  const engine = createCascadeEngine(
    cascadeEngineOptions(settings, () => undefined),
    new ScriptedEngine(),
  );

  let waiter: { test: (e: EngineEvent) => boolean; resolve: () => void } | null = null;
  const marks = new Map<string, number>();
  const sink = (event: EngineEvent) => {
    if (event.type === 'input_transcript' && event.done) marks.set('final', performance.now());
    if (event.type === 'output_audio' && !marks.has('audio')) marks.set('audio', performance.now());
    if (waiter?.test(event)) {
      waiter.resolve();
      waiter = null;
    }
  };
  const until = (test: (e: EngineEvent) => boolean) =>
    new Promise<void>((resolve) => {
      waiter = { test, resolve };
    });
  const speak = (stream: EngineStream) => {
    for (const f of [...SPEECH, ...SILENCE]) stream.pushAudio(f);
  };

  // 1. Added latency per turn, 3. CPU per turn.
  const stream = await engine.open(CONFIG, sink);
  chatPlan = { kind: 'reply', pieces: ['Sure, here', ' it is.', ' And a little', ' more.'] };
  const toRequest: number[] = [];
  const toAudio: number[] = [];
  for (let i = 0; i < 10; i++) {
    const done = until((e) => e.type === 'response_done');
    speak(stream);
    await done; // warm-up: connections, JIT
  }
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < TURNS; i++) {
    marks.clear();
    const done = until((e) => e.type === 'response_done');
    const requests = chat.requests.length;
    speak(stream);
    await done;
    const final = marks.get('final')!;
    toRequest.push(chat.requests[requests].receivedAt - final);
    toAudio.push(marks.get('audio')! - final);
  }
  const cpu = process.cpuUsage(cpuBefore);
  await stream.close();

  // 2. Barge-in with both requests in flight.
  chatPlan = {
    kind: 'reply',
    pieces: ['Here is a long answer.', ...Array.from({ length: 200 }, () => ' More.')],
    delayMs: 10,
  };
  speechPlan = { msPerChar: 50, chunkMs: 40, chunkEveryMs: 40 };
  const chatClosed: number[] = [];
  const speechClosed: number[] = [];
  for (let i = 0; i < BARGE_INS; i++) {
    const s = await engine.open({ ...CONFIG, sessionId: `sess_barge_${i}` }, sink);
    const audio = until((e) => e.type === 'output_audio');
    speak(s);
    await audio;
    const chatRequest = chat.requests.at(-1)!;
    const speechRequest = speech.requests.at(-1)!;
    const at = performance.now();
    s.interrupt();
    await Promise.all([chat.waitUntil(() => chatRequest.aborted), speech.waitUntil(() => speechRequest.aborted)]);
    chatClosed.push(chatRequest.abortedAt! - at);
    speechClosed.push(speechRequest.abortedAt! - at);
    await s.close();
    await sleep(5);
  }
  await engine.shutdown();
  await chat.close();
  await speech.close();

  const results = {
    turns: TURNS,
    finalToChatRequestMs: distribution(toRequest),
    finalToFirstAudioMs: distribution(toAudio),
    cpuMsPerTurn: round((cpu.user + cpu.system) / 1000 / TURNS, 2),
    bargeIns: BARGE_INS,
    interruptToChatClosedMs: distribution(chatClosed),
    interruptToSpeechClosedMs: distribution(speechClosed),
  };
  const targets = { finalToFirstAudioP99Ms: 50, interruptToUpstreamClosedP99Ms: 200 };
  const met =
    results.finalToFirstAudioMs.p99 < targets.finalToFirstAudioP99Ms &&
    Math.max(results.interruptToChatClosedMs.p99, results.interruptToSpeechClosedMs.p99) <
      targets.interruptToUpstreamClosedP99Ms;
  const headline =
    `first audio p50 ${results.finalToFirstAudioMs.p50} / p99 ${results.finalToFirstAudioMs.p99} ms after the final; ` +
    `barge-in closes chat p99 ${results.interruptToChatClosedMs.p99} ms, speech p99 ${results.interruptToSpeechClosedMs.p99} ms; ` +
    `${results.cpuMsPerTurn} CPU-ms per turn`;
  const path = writeReport({ name: 'cascade', headline, results, targets, met });
  process.stdout.write(`${headline}\n${JSON.stringify(results, null, 2)}\nwritten to ${path}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

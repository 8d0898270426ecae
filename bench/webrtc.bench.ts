/**
 * WebRTC calls beside WebSocket sessions on the same conversation path: the service as its own process
 * (dist/src/main.js) with `vendor-voicechat` served by the cascade, its chat and speech upstreams fake
 * servers in this process that answer at once, and the scripted engine as the listener (it hears
 * loudness, so recognition costs nothing and the figures are the transport's and the session layer's).
 *
 *   npm run build && node dist/bench/webrtc.bench.js [--quick]
 *
 * For 1, 10 and 50 concurrent sessions (--quick: 1 and 10), first as WebRTC calls (node-datachannel
 * client peers in this process, POST /v1/realtime/calls, Opus packets every 20 ms), then as Realtime
 * sockets (`/v1/realtime?model=vendor-voicechat`, 20 ms `input_audio_buffer.append`s): every session
 * speaks the same 2 s cycle (480 ms of a loud square wave, then silence) for the window, and each turn
 * is answered.
 *   CPU per session  the service's utime+stime over the window (/proc) / sessions, in % of one core;
 *                    sessions per core = 100 / that
 *   voice to voice   last voiced packet (or append) sent → first answer audio received (an RTP packet,
 *                    or a `response.output_audio.delta`); it includes the turn detector's silence wait
 *                    (the same on both paths) and the client's side of the transport.
 * BENCH_DEBUG=1 runs one session per path and prints the call's events and the service's log.
 * Results: bench/results/webrtc.json.
 *
 * BENCH_STEPS=1,50 chooses the steps; BENCH_RTC_LOG=Debug prints libdatachannel's log; BENCH_GC=1 with
 * `node --expose-gc` collects garbage every 4 s (a client object the bench does not hold shows at once).
 * Every step reports turns spoken and answered and sessions ended: a step whose calls stalled shows it.
 */
import { randomInt } from 'node:crypto';
import { Audio, cleanup, initLogger, PeerConnection, type LogLevel } from 'node-datachannel';
import { OpusEncoder } from '../libs/opus';
import { isRtcp, writeRtp } from '../src/gateway/webrtc/rtp';
import { Resampler } from '../src/platform/audio/resampler';
import { writeReport } from './support/report';
import {
  cyclePcm24k,
  openRealtimeSocket,
  speakingStep,
  TurnClock,
  type SpeakingSession,
  type StepResult,
} from './support/spoken-turns';
import { BENCH_KEY, startVoicechatService } from './support/voicechat-service';

const quick = process.argv.includes('--quick');
const STEPS = process.env.BENCH_STEPS
  ? process.env.BENCH_STEPS.split(',').map(Number)
  : process.env.BENCH_DEBUG
    ? [1]
    : quick
      ? [1, 10]
      : [1, 10, 50];
if (process.env.BENCH_RTC_LOG)
  initLogger(process.env.BENCH_RTC_LOG as LogLevel, (level, message) =>
    process.stdout.write(`rtc ${level} ${message}\n`),
  );
const WINDOW_MS = quick ? 10_000 : 20_000;

/** The cycle's frames as Opus packets at 48 kHz (the call's microphone). */
function opusCycle(pcm: Buffer[]): Buffer[] {
  const up = new Resampler(24000, 48000);
  const encoder = new OpusEncoder();
  return pcm.map((frame) => {
    const out = up.processPcm16(frame);
    const samples = new Int16Array(960);
    for (let i = 0; i < Math.min(960, out.length >> 1); i++) samples[i] = out.readInt16LE(i * 2);
    return encoder.encode(samples);
  });
}

/**
 * A call, tried again when its setup fails: libdatachannel (this client) checks the answer's DTLS
 * fingerprint before it has stored the answer when the service's DTLS hello comes in during
 * setRemoteDescription ("certificate verify failed", then "Got a remote candidate without ICE
 * transport"). The service answers `a=setup:active` as RFC 5763 recommends, so its hello races the
 * client's handling of the answer; a browser waits for the fingerprint. The retries are counted.
 */
async function openCall(baseUrl: string, opus: Buffer[], retried: { count: number }): Promise<SpeakingSession> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryCall(baseUrl, opus);
    } catch (error) {
      if (attempt === 3) throw error;
      retried.count++;
      if (process.env.BENCH_DEBUG) process.stdout.write(`client: call setup failed (${String(error)}), again\n`);
    }
  }
}

/**
 * Every client peer's objects, held until the process exits: node-datachannel closes what the GC
 * collects, and a wrapper collected after its peer closed (a failed setup's, a finished step's) now
 * and then crashed the process (SIGSEGV or SIGBUS) before it wrote its report.
 */
const keptAlive: object[] = [];

async function tryCall(baseUrl: string, opus: Buffer[]): Promise<SpeakingSession> {
  const pc = new PeerConnection('bench', { iceServers: [] });
  let failed = false;
  pc.onStateChange((state) => {
    if (state === 'failed' || state === 'closed') failed = true;
    if (process.env.BENCH_DEBUG) process.stdout.write(`client ${new Date().toISOString()} pc ${state}\n`);
  });
  const gathered = new Promise<void>((resolve) => pc.onGatheringStateChange((s) => s === 'complete' && resolve()));
  const media = new Audio('0', 'SendRecv');
  media.addOpusCodec(111);
  const ssrc = randomInt(1, 0x7fffffff);
  media.addSSRC(ssrc, 'bench', 'bench', 'mic');
  const track = pc.addTrack(media);
  const clock = new TurnClock();
  let answering = false;
  track.onMessage((packet) => {
    if (isRtcp(packet) || answering) return;
    answering = true;
    clock.heard();
  });
  const channel = pc.createDataChannel('oai-events');
  keptAlive.push(pc, media, track, channel);
  channel.onMessage((message) => {
    if (process.env.BENCH_DEBUG) process.stdout.write(`${String(message).slice(0, 120)}\n`);
    if (String(message).includes('"output_audio_buffer.stopped"')) answering = false;
  });
  try {
    // createDataChannel starts the negotiation itself (libdatachannel's auto-negotiation): no setLocalDescription here.
    await gathered;
    const res = await fetch(`${baseUrl}/v1/realtime/calls`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${BENCH_KEY}`, 'Content-Type': 'application/sdp' },
      body: pc.localDescription()!.sdp,
    });
    if (res.status !== 201) throw new Error(`calls answered ${res.status}: ${await res.text()}`);
    pc.setRemoteDescription(await res.text(), 'answer');
    const started = Date.now();
    while (!channel.isOpen() || !track.isOpen()) {
      if (failed || Date.now() - started > 15_000) throw new Error('the call did not connect');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch (error) {
    pc.close();
    throw error;
  }
  let sequence = 0;
  // The channel, track and peer stay referenced here for the call's life: node-datachannel closes a
  // DataChannel whose JS object is garbage-collected, and the service then ends the session as the
  // client's close (close_requested). Held only by its onMessage callback, the bench's channel was
  // collected within seconds: that was the WebRTC "stall after the first turns".
  const held = { pc, track, channel };
  return {
    frame(i) {
      if (!held.track.isOpen()) return;
      held.track.sendMessageBinary(
        writeRtp({ payloadType: 111, sequence: sequence++, timestamp: sequence * 960, ssrc, marker: false }, opus[i]),
      );
      clock.sent(i);
    },
    clock,
    get ended() {
      return failed || !held.channel.isOpen();
    },
    close() {
      held.channel.close();
      held.pc.close();
    },
  };
}

async function main(): Promise<void> {
  const { service, close } = await startVoicechatService('webrtc');
  const results: StepResult[] = [];
  try {
    const pcm = cyclePcm24k();
    const opus = opusCycle(pcm);
    for (const count of STEPS) {
      results.push(
        await speakingStep(service, 'webrtc', count, WINDOW_MS, (retried) => openCall(service.baseUrl, opus, retried)),
      );
      results.push(
        await speakingStep(service, 'websocket', count, WINDOW_MS, () =>
          openRealtimeSocket(service.baseUrl, BENCH_KEY, pcm),
        ),
      );
    }
  } finally {
    await close();
    cleanup();
  }
  const at = (path: string) => results.filter((r) => r.path === path).at(-1)!;
  const largest = at('webrtc');
  writeReport({
    name: 'webrtc',
    headline:
      `${largest.sessions} WebRTC calls: ${largest.cpuPercentPerSession}% of a core each (${largest.sessionsPerCore}/core) ` +
      `vs ${at('websocket').cpuPercentPerSession}% over WebSocket; voice to voice p50 ${largest.voiceToVoiceMs.p50} ms`,
    results: { steps: results, windowMs: WINDOW_MS },
    targets: { note: 'no target yet: the first figures of WebRTC calls' },
    met: true,
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);

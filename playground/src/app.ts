/**
 * The playground: mints a client secret with the pasted API key (kept in this page's memory only),
 * opens the live socket with the secret, streams the microphone or a dropped file, and shows what
 * the session reports.
 */
import {
  connectWithClientSecret,
  createClientSecret,
  createRestClient,
  LatencyMeter,
  LiveSessionError,
  transcribeFile,
  type LiveSession,
  type LiveSessionEnd,
} from '@continuum/client';
import {
  attachPlayback,
  decodeAudioFile,
  PcmPlayer,
  startMicrophone,
  streamAtRealTime,
  type Microphone,
} from '@continuum/client/browser';
import { agentLevel, agentRunning, agentTransport, askAgent, startAgent, stopAgent } from './agent.js';
import { describeSecretRefusal, describeSessionEnd, describeTurn } from './messages.js';
import { append, ms, resetSessionView, setStatus, showError, source, view } from './view.js';

interface Run {
  context: AudioContext;
  player: PcmPlayer | null;
  session: LiveSession | null;
  microphone: Microphone | null;
  meter: LatencyMeter;
  abort: AbortController;
  timer: ReturnType<typeof setInterval>;
  meteredSeconds: number;
}

/** A failure already phrased for people. */
class Shown extends Error {}

let current: Run | null = null;
let droppedFile: File | null = null;

// For automated browser tests and debugging: what plays (the player's analyser) and the session.
(globalThis as { continuumPlayground?: object }).continuumPlayground = {
  get player() {
    return current?.player ?? null;
  },
  get session() {
    return current?.session ?? null;
  },
  get agentTransport() {
    return agentTransport();
  },
};

view.start.addEventListener('click', () => void start());
view.stop.addEventListener('click', () => void stop());
view.ask.addEventListener('submit', (event) => {
  event.preventDefault();
  askAgent(view.askText.value);
  view.askText.value = '';
});
view.file.addEventListener('change', () => chooseFile(view.file.files?.[0] ?? null));
view.drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  view.drop.classList.add('over');
});
view.drop.addEventListener('dragleave', () => view.drop.classList.remove('over'));
view.drop.addEventListener('drop', (event) => {
  event.preventDefault();
  view.drop.classList.remove('over');
  chooseFile(event.dataTransfer?.files[0] ?? null);
});

function chooseFile(file: File | null): void {
  droppedFile = file;
  if (!file) return;
  document.querySelector<HTMLInputElement>('input[name="source"][value="file"]')!.checked = true;
  setStatus(`File ready: ${file.name}`);
}

async function start(): Promise<void> {
  const apiKey = view.apiKey.value.trim();
  if (!apiKey) return showError('Paste an API key first.');
  const input = source();
  if (view.model.value === 'agent') return runAgent(apiKey, input === 'microphone');
  const file = droppedFile;
  if (view.model.value === 'batch') return runBatch(apiKey, file);
  if (input === 'file' && !file) return showError('Drop a WAV file first, or choose the microphone.');
  const model = view.model.value;
  const talking = model === 'vendor-voicechat';
  resetSessionView();
  view.replySection.hidden = !talking;
  // Made inside the click: browsers start audio only after a gesture.
  const context = new AudioContext();
  const player = talking ? new PcmPlayer({ context }) : null;
  const run: Run = {
    context,
    player,
    session: null,
    microphone: null,
    meter: new LatencyMeter(),
    abort: new AbortController(),
    timer: setInterval(() => (view.level.value = player?.level() ?? 0), 100),
    meteredSeconds: 0,
  };
  current = run;
  view.start.disabled = true;
  view.stop.disabled = false;
  try {
    setStatus('Minting a client secret…');
    const rest = createRestClient({ baseUrl: location.origin, apiKey });
    const secret = await createClientSecret(rest, {
      session: { type: talking ? 'live' : 'transcription', model },
    }).catch((error: unknown) => {
      throw new Shown(describeSecretRefusal(error));
    });
    setStatus('Connecting…');
    const session = await connectWithClientSecret({
      liveUrl: secret.session.live_url,
      clientSecret: secret.value,
      session: { model },
    }).catch((error: unknown) => {
      if (error instanceof LiveSessionError && error.end) throw new Shown(describeSessionEnd(error.end).text);
      throw new Shown(`The session did not start: ${error instanceof Error ? error.message : String(error)}`);
    });
    run.session = session;
    follow(session, run);
    if (player) attachPlayback(session, player);
    setStatus(`Session ${session.resource?.id ?? ''} running: ${talking ? 'say something' : 'speak or play audio'}`);
    const send = (frame: Int16Array) => {
      session.sendAudio(frame);
      run.meter.inputSent(session.inputMs);
      renderUsage(run);
    };
    if (input === 'microphone') {
      run.microphone = await startMicrophone({ context, onFrame: send });
    } else {
      const pcm = await decodeAudioFile(await file!.arrayBuffer(), context);
      await streamAtRealTime(pcm, send, run.abort.signal);
      session.commit(); // the file's end is the end of the turn
      run.meter.inputSent(session.inputMs);
      if (current === run) setStatus('File sent: waiting for the session (Stop ends it)');
    }
  } catch (error) {
    showError(error instanceof Shown ? error.message : `Unexpected failure: ${String(error)}`);
    setStatus('Idle');
    await finish(run);
  }
}

/** Batch mode: the whole file in one request, its segments shown with their times. */
async function runBatch(apiKey: string, file: File | null): Promise<void> {
  if (!file) return showError('Drop an audio file first.');
  resetSessionView();
  view.replySection.hidden = true;
  view.start.disabled = true;
  try {
    setStatus(`Transcribing ${file.name}…`);
    const started = performance.now();
    const rest = createRestClient({ baseUrl: location.origin, apiKey });
    const result = (await transcribeFile(rest, file, { responseFormat: 'verbose_json' })) as {
      text: string;
      duration?: number;
      segments?: Array<{ start: number; end: number; text: string }>;
      usage?: { seconds?: number };
    };
    for (const segment of result.segments ?? []) {
      append(view.finals, `${segment.start.toFixed(1)}–${segment.end.toFixed(1)} s: ${segment.text}`);
    }
    if ((result.segments ?? []).length === 0) append(view.finals, result.text || '(no speech)');
    view.usage.textContent = `${result.usage?.seconds ?? '–'} s billed`;
    const seconds = (performance.now() - started) / 1000;
    setStatus(`Transcribed ${result.duration ?? '?'} s of audio in ${seconds.toFixed(1)} s`);
  } catch (error) {
    showError(`The file was not transcribed: ${error instanceof Error ? error.message : String(error)}`);
    setStatus('Idle');
  } finally {
    view.start.disabled = false;
  }
}

/** Agent mode (agent.ts): the OpenAI Realtime API over a WebRTC call, with a tool that runs in this page. */
async function runAgent(apiKey: string, microphone: boolean): Promise<void> {
  resetSessionView();
  view.replySection.hidden = false;
  view.start.disabled = true;
  view.stop.disabled = false;
  const timer = setInterval(() => (view.level.value = agentLevel()), 100);
  const release = () => {
    clearInterval(timer);
    view.start.disabled = false;
    view.stop.disabled = true;
  };
  try {
    await startAgent(apiKey, microphone, () => {
      release();
      setStatus('Ended');
    });
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
    setStatus('Idle');
    release();
  }
}

async function stop(): Promise<void> {
  if (agentRunning()) return stopAgent();
  const run = current;
  if (!run) return;
  run.abort.abort();
  setStatus('Closing…');
  await run.microphone?.stop();
  run.microphone = null;
  if (run.session) await run.session.close();
  await finish(run);
}

/** Renders each server event; the session's end releases the audio. */
function follow(session: LiveSession, run: Run): void {
  const partials = new Map<string, string>();
  let replyItem: string | null = null;
  session.on('*', (event) => {
    if (run.meter.observe(event)) renderLatency(run);
    switch (event.type) {
      case 'session.input_transcript.delta':
        if (event.done) {
          partials.delete(event.item_id);
          if (event.transcript) append(view.finals, event.transcript);
        } else partials.set(event.item_id, (partials.get(event.item_id) ?? '') + event.delta);
        view.partial.textContent = [...partials.values()].join(' … ');
        break;
      case 'session.output_transcript.delta':
        if (replyItem !== event.item_id) view.reply.textContent = '';
        replyItem = event.item_id;
        view.reply.textContent =
          event.done && event.transcript ? event.transcript : view.reply.textContent + event.delta;
        break;
      case 'session.turn.event':
        append(view.turns, describeTurn(event.event));
        break;
      case 'session.usage.updated':
        run.meteredSeconds = event.usage.seconds;
        renderUsage(run);
        break;
      case 'session.input_audio.warning':
      case 'session.output_audio.warning':
        append(view.turns, `warning ${event.code}: ${event.message}`);
        break;
      case 'error':
        showError(`${event.error.message} (${event.error.code})`);
        break;
    }
  });
  void session.closed.then((end) => ended(end, run));
}

function ended(end: LiveSessionEnd, run: Run): void {
  const { text, problem } = describeSessionEnd(end);
  view.closeReason.textContent = end.kind === 'session_closed' ? end.reason : end.kind;
  if (end.kind === 'session_closed') run.meteredSeconds = end.usage.seconds;
  renderUsage(run);
  if (problem) showError(text);
  setStatus(problem ? 'Ended' : text);
  void finish(run);
}

async function finish(run: Run): Promise<void> {
  if (current !== run) return;
  current = null;
  run.abort.abort();
  clearInterval(run.timer);
  await run.microphone?.stop();
  run.player?.flush();
  await run.context.close().catch(() => undefined);
  view.start.disabled = false;
  view.stop.disabled = true;
}

function renderUsage(run: Run): void {
  const sent = (run.session?.inputMs ?? 0) / 1000;
  view.usage.textContent = `${run.meteredSeconds.toFixed(2)} s metered · ${sent.toFixed(2)} s sent`;
}

function renderLatency(run: Run): void {
  view.latPartial.textContent = ms(run.meter.latest.firstPartialMs);
  view.latFinal.textContent = ms(run.meter.latest.finalAfterSpeechEndMs);
  view.latAnswer.textContent = ms(run.meter.latest.firstAnswerAudioMs);
}

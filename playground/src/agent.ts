/**
 * Agent mode: a voice agent over the OpenAI Realtime API with one function tool that runs in this page
 * (the clock). The pasted key only mints a `realtime` client secret; the call is opened with the secret.
 * The call is WebRTC, the Agents SDK's default transport (agent-call.ts). Where the service's calls are
 * turned off (`WEBRTC_UDP_PORT=0`, its calls endpoint answers 404 and spends no secret), the same secret
 * opens the Realtime WebSocket instead (agent-socket.ts): the page is served by every deployment, also
 * those that expose no UDP port.
 */
import { createRealtimeClientSecret, createRestClient } from '@continuum/client';
import { CallsTurnedOff, openCall } from './agent-call.js';
import type { AgentEvent, AgentLink, AgentOptions, ClockTool } from './agent-link.js';
import { openSocket } from './agent-socket.js';
import { describeSecretRefusal } from './messages.js';
import { append, setStatus, showError, view } from './view.js';

const MODEL = 'vendor-voicechat';
const INSTRUCTIONS = 'You are a brief, friendly voice assistant. For any question about the time, call get_time.';

interface AgentRun {
  link: AgentLink;
  context: AudioContext;
}

let agent: AgentRun | null = null;

/** The page's clock, offered to the model as a tool: its output is the browser's own local time. */
const clock: ClockTool = {
  description: 'The current local time where the user is.',
  run: () => {
    const time = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    append(view.tools, `get_time() → ${time}`);
    return { time };
  },
};

export function agentRunning(): boolean {
  return agent !== null;
}

/** The transport agent mode runs on now (for tests and the curious). */
export function agentTransport(): AgentLink['transport'] | null {
  return agent?.link.transport ?? null;
}

/** Runs inside the Start click: browsers start audio only after a gesture. */
export async function startAgent(apiKey: string, useMicrophone: boolean, onEnd: () => void): Promise<void> {
  view.toolsHeading.hidden = false;
  view.ask.hidden = false;
  const context = new AudioContext();
  setStatus('Minting a client secret…');
  const rest = createRestClient({ baseUrl: location.origin, apiKey });
  const secret = await createRealtimeClientSecret(rest, {
    session: { type: 'realtime', model: MODEL },
  }).catch(async (error: unknown) => {
    await context.close();
    throw new Error(describeSecretRefusal(error));
  });
  setStatus('Calling…');
  const options: AgentOptions = {
    secret: secret.value,
    model: MODEL,
    instructions: INSTRUCTIONS,
    clock,
    context,
    useMicrophone,
    onEvent: follow,
  };
  let link: AgentLink;
  try {
    link = await openCall(options).catch((error: unknown) => {
      if (!(error instanceof CallsTurnedOff)) throw error;
      setStatus('WebRTC calls are off on this service: connecting over the WebSocket…');
      return openSocket(options);
    });
  } catch (error) {
    await context.close();
    throw new Error(`The agent could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  const run: AgentRun = { link, context };
  agent = run;
  void link.closed.then((reason) => {
    view.closeReason.textContent = reason;
    void finishAgent(run).then(onEnd);
  });
  const over = link.transport === 'webrtc' ? 'WebRTC' : 'the WebSocket';
  const what = useMicrophone ? 'ask it something' : 'type a question';
  setStatus(`Agent session ${secret.session.id} running over ${over}: ${what}`);
}

export function askAgent(text: string): void {
  if (!agent || !text.trim()) return;
  append(view.finals, text.trim());
  agent.link.say(text.trim());
}

export async function stopAgent(): Promise<void> {
  const run = agent;
  if (!run) return;
  setStatus('Closing…');
  await run.link.close();
}

let replyItem: unknown = null;

function follow(event: AgentEvent): void {
  switch (event.type) {
    case 'conversation.item.input_audio_transcription.completed':
      if (event.transcript) append(view.finals, String(event.transcript));
      break;
    case 'response.output_audio_transcript.delta':
    case 'response.output_text.delta':
      if (replyItem !== event.item_id) view.reply.textContent = '';
      replyItem = event.item_id;
      view.reply.textContent += String(event.delta);
      break;
    case 'response.done':
      append(view.turns, `response ${String((event.response as { status?: string }).status)}`);
      break;
    case 'error':
      showError(`${(event.error as { message: string }).message} (${(event.error as { code: string }).code})`);
      break;
  }
}

async function finishAgent(run: AgentRun): Promise<void> {
  if (agent !== run) return;
  agent = null;
  await run.context.close().catch(() => undefined);
  view.ask.hidden = true;
}

export function agentLevel(): number {
  return agent?.link.level() ?? 0;
}

/**
 * Agent mode: a voice agent over the OpenAI Realtime conversation API (`/v1/realtime`) with one function
 * tool that runs in this page (the clock). The pasted key only mints a `realtime` client secret; the socket
 * is opened with the secret. Speak (microphone) or type; the agent's spoken answer plays here.
 */
import {
  connectConversation,
  Conversation,
  ConversationError,
  createRealtimeClientSecret,
  createRestClient,
  type ConversationEvent,
} from '@continuum/client';
import { PcmPlayer, startMicrophone, type Microphone } from '@continuum/client/browser';
import { describeSecretRefusal } from './messages.js';
import { append, setStatus, showError, view } from './view.js';

const INSTRUCTIONS = 'You are a brief, friendly voice assistant. For any question about the time, call get_time.';

interface AgentRun {
  conversation: Conversation;
  player: PcmPlayer;
  context: AudioContext;
  microphone: Microphone | null;
}

let agent: AgentRun | null = null;

/** The page's clock, offered to the model as a tool: its output is the browser's own local time. */
const clock = {
  description: 'The current local time where the user is.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  run: () => {
    const time = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    append(view.tools, `get_time() → ${time}`);
    return { time };
  },
};

export function agentRunning(): boolean {
  return agent !== null;
}

/** Runs inside the Start click: browsers start audio only after a gesture. */
export async function startAgent(apiKey: string, useMicrophone: boolean, onEnd: () => void): Promise<void> {
  view.toolsHeading.hidden = false;
  view.ask.hidden = false;
  const context = new AudioContext();
  const player = new PcmPlayer({ context });
  setStatus('Minting a client secret…');
  const rest = createRestClient({ baseUrl: location.origin, apiKey });
  const secret = await createRealtimeClientSecret(rest, {
    session: { type: 'realtime', model: 'vendor-voicechat' },
  }).catch(async (error: unknown) => {
    await context.close();
    throw new Error(describeSecretRefusal(error));
  });
  setStatus('Connecting…');
  let conversation: Conversation;
  try {
    conversation = await connectConversation({
      baseUrl: location.origin,
      clientSecret: secret.value,
      instructions: INSTRUCTIONS,
      tools: { get_time: clock },
    });
  } catch (error) {
    await context.close();
    const why = error instanceof ConversationError ? `${error.message} (${error.code})` : String(error);
    throw new Error(`The agent could not start: ${why}`);
  }
  const run: AgentRun = { conversation, player, context, microphone: null };
  agent = run;
  follow(run);
  void conversation.closed.then((code) => {
    view.closeReason.textContent = `socket closed (${code})`;
    void finishAgent(run).then(onEnd);
  });
  if (useMicrophone) {
    run.microphone = await startMicrophone({ context, onFrame: (frame) => conversation.sendAudio(frame) });
  }
  setStatus(`Agent session ${secret.session.id} running: ${useMicrophone ? 'ask it something' : 'type a question'}`);
}

export function askAgent(text: string): void {
  if (!agent || !text.trim()) return;
  append(view.finals, text.trim());
  agent.conversation.say(text.trim());
}

export async function stopAgent(): Promise<void> {
  const run = agent;
  if (!run) return;
  setStatus('Closing…');
  await run.conversation.close();
}

function follow(run: AgentRun): void {
  let replyItem: unknown = null;
  const reply = (event: ConversationEvent) => {
    if (replyItem !== event.item_id) view.reply.textContent = '';
    replyItem = event.item_id;
    view.reply.textContent += String(event.delta);
  };
  run.conversation.on('*', (event) => {
    switch (event.type) {
      case 'conversation.item.input_audio_transcription.completed':
        if (event.transcript) append(view.finals, String(event.transcript));
        break;
      case 'input_audio_buffer.speech_started':
        run.player.flush(); // the user talks over the answer: stop it here at once
        break;
      case 'response.output_audio_transcript.delta':
      case 'response.output_text.delta':
        reply(event);
        break;
      case 'response.output_audio.delta':
        run.player.enqueue(Conversation.audioOf(event));
        break;
      case 'response.done':
        append(view.turns, `response ${String((event.response as { status?: string }).status)}`);
        break;
      case 'error':
        showError(`${(event.error as { message: string }).message} (${(event.error as { code: string }).code})`);
        break;
    }
  });
}

async function finishAgent(run: AgentRun): Promise<void> {
  if (agent !== run) return;
  agent = null;
  await run.microphone?.stop();
  run.player.flush();
  await run.context.close().catch(() => undefined);
  view.ask.hidden = true;
}

export function agentLevel(): number {
  return agent?.player.level() ?? 0;
}

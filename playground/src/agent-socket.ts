/**
 * The agent over the Realtime WebSocket (`/v1/realtime`), opened with the same client secret: the
 * fallback for a service whose WebRTC calls are turned off. The microphone is captured and the answer
 * played by the page itself (pcm16 at 24 kHz in events).
 */
import { connectConversation, Conversation, ConversationError } from '@continuum/client';
import { PcmPlayer, startMicrophone, type Microphone } from '@continuum/client/browser';
import type { AgentLink, AgentOptions } from './agent-link.js';

export async function openSocket(options: AgentOptions): Promise<AgentLink> {
  const { context, clock } = options;
  const player = new PcmPlayer({ context });
  let conversation: Conversation;
  try {
    conversation = await connectConversation({
      baseUrl: location.origin,
      clientSecret: options.secret,
      instructions: options.instructions,
      tools: { get_time: { ...clock, parameters: { type: 'object', properties: {}, additionalProperties: false } } },
    });
  } catch (error) {
    throw error instanceof ConversationError ? new Error(`${error.message} (${error.code})`) : error;
  }
  conversation.on('*', (event) => {
    if (event.type === 'input_audio_buffer.speech_started') player.flush(); // the user talks over the answer
    if (event.type === 'response.output_audio.delta') player.enqueue(Conversation.audioOf(event));
    options.onEvent(event);
  });
  let microphone: Microphone | null = null;
  if (options.useMicrophone) {
    microphone = await startMicrophone({ context, onFrame: (frame) => conversation.sendAudio(frame) });
  }
  const closed = conversation.closed.then(async (code) => {
    await microphone?.stop();
    player.flush();
    return `socket closed (${code})`;
  });
  return {
    transport: 'websocket',
    id: 'socket',
    say: (text) => conversation.say(text),
    level: () => player.level(),
    close: async () => {
      await conversation.close();
      await closed;
    },
    closed,
  };
}

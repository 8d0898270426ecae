/**
 * The agent over WebRTC, as OpenAI's Agents SDK runs it by default in a browser: `RealtimeSession` with
 * its WebRTC transport POSTs the offer to `/v1/realtime/calls` with the client secret, the microphone
 * travels as Opus on the call's audio track, the answer plays from the call's track, and the events
 * travel on the `oai-events` data channel. The SDK runs the page's tool and sends its output back.
 */
import { OpenAIRealtimeWebRTC, RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import type { AgentLink, AgentOptions } from './agent-link.js';

/** The service answered the calls endpoint 404: its calls are turned off (`WEBRTC_UDP_PORT=0`). */
export class CallsTurnedOff extends Error {}

export async function openCall(options: AgentOptions): Promise<AgentLink> {
  const { context, clock } = options;
  // Without the microphone (questions typed) the call still needs an audio track: a silent one.
  const silent = options.useMicrophone ? null : context.createMediaStreamDestination().stream;
  const audioElement = document.createElement('audio');
  const transport = new OpenAIRealtimeWebRTC({ audioElement, ...(silent ? { mediaStream: silent } : {}) });
  const getTime = tool({
    name: 'get_time',
    description: clock.description,
    parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    strict: true,
    execute: async () => JSON.stringify(clock.run()),
  });
  const agent = new RealtimeAgent({ name: 'Playground', instructions: options.instructions, tools: [getTime] });
  const session = new RealtimeSession(agent, { model: options.model, transport });
  session.on('transport_event', (event) => options.onEvent(event as { type: string; [key: string]: unknown }));
  const stopSilent = () => silent?.getTracks().forEach((track) => track.stop());
  try {
    await session.connect({ apiKey: options.secret, url: `${location.origin}/v1/realtime/calls` });
  } catch (error) {
    session.close();
    stopSilent();
    // The SDK's message for a refused offer names the status; a 404 spends no secret (the page falls back).
    if (/status 404\b/.test(String((error as Error)?.message))) throw new CallsTurnedOff();
    throw error;
  }
  const { peerConnection, dataChannel } = transport.connectionState;
  // What the call plays, measured: the answer's track through an analyser (it plays from the SDK's element).
  const analyser = context.createAnalyser();
  const track = peerConnection?.getReceivers().find((receiver) => receiver.track.kind === 'audio')?.track;
  if (track) context.createMediaStreamSource(new MediaStream([track])).connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  const closed = new Promise<string>((resolve) => {
    dataChannel?.addEventListener('close', () => resolve('call closed'));
    transport.on('connection_change', (status) => status === 'disconnected' && resolve('call closed'));
  });
  void closed.then(stopSilent);
  return {
    transport: 'webrtc',
    id: transport.callId ?? 'call',
    say: (text) => session.sendMessage(text),
    level: () => {
      analyser.getFloatTimeDomainData(samples);
      let peak = 0;
      for (const v of samples) peak = Math.max(peak, Math.abs(v));
      return peak;
    },
    close: async () => {
      session.close();
      await closed;
    },
    closed,
  };
}

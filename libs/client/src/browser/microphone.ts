import { CAPTURE_PROCESSOR } from './capture.worklet-name.js';

export interface MicrophoneOptions {
  /** Each whole 80 ms frame of 24 kHz pcm16, in order. */
  onFrame: (frame: Int16Array) => void;
  /** Where the compiled capture worklet is served; defaults to the file next to this module. */
  workletUrl?: string | URL;
  /** Share a context (e.g. the player's); by default one is made and closed on stop. */
  context?: AudioContext;
  constraints?: MediaTrackConstraints;
}

export interface Microphone {
  readonly context: AudioContext;
  readonly stream: MediaStream;
  stop(): Promise<void>;
}

/**
 * Captures the microphone through an AudioWorklet (the audio thread, no main-thread timers): the
 * device's rate is resampled to 24 kHz pcm16 and delivered in 80 ms frames. Call it from a user
 * gesture: browsers keep an AudioContext made elsewhere suspended.
 */
export async function startMicrophone(options: MicrophoneOptions): Promise<Microphone> {
  const context = options.context ?? new AudioContext();
  const owned = !options.context;
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: {
      channelCount: 1,
      echoCancellation: true,
      noiseSuppression: true,
      autoGainControl: true,
      ...options.constraints,
    },
  });
  try {
    await context.audioWorklet.addModule(options.workletUrl ?? new URL('./capture.worklet.js', import.meta.url));
    if (context.state === 'suspended') await context.resume();
    const source = context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(context, CAPTURE_PROCESSOR, { numberOfInputs: 1, numberOfOutputs: 0 });
    node.port.onmessage = (event: MessageEvent<Int16Array>) => options.onFrame(event.data);
    source.connect(node);
    return {
      context,
      stream,
      async stop() {
        node.port.postMessage('stop');
        source.disconnect();
        node.disconnect();
        for (const track of stream.getTracks()) track.stop();
        if (owned) await context.close();
      },
    };
  } catch (error) {
    for (const track of stream.getTracks()) track.stop();
    if (owned) await context.close();
    throw error;
  }
}

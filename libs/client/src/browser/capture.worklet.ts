/**
 * The microphone's AudioWorklet (audio thread): resamples the device's audio to 24 kHz pcm16 and
 * posts whole 80 ms frames (1920 samples, transferred, not copied) to the main thread.
 */
import { FrameAssembler } from '../live/pcm.js';
import { CAPTURE_PROCESSOR } from './capture.worklet-name.js';
import { StreamingResampler } from './resampler.js';

// The AudioWorkletGlobalScope is not in TypeScript's DOM library.
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  abstract process(inputs: Float32Array[][]): boolean;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;
declare const sampleRate: number;

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly resampler = new StreamingResampler(sampleRate);
  private readonly frames = new FrameAssembler();
  private stopped = false;

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent) => {
      if (event.data === 'stop') this.stopped = true;
    };
  }

  process(inputs: Float32Array[][]): boolean {
    if (this.stopped) return false;
    const channel = inputs[0]?.[0];
    if (channel) {
      for (const frame of this.frames.push(this.resampler.process(channel))) {
        this.port.postMessage(frame, [frame.buffer]);
      }
    }
    return true;
  }
}

registerProcessor(CAPTURE_PROCESSOR, CaptureProcessor);

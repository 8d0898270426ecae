/** RIFF/WAVE for the mono pcm16 files flite writes, Debian's test data ships and test fixtures need. */
import { WaveFile } from 'wavefile';

export interface PcmClip {
  sampleRate: number;
  samples: Int16Array;
}

export function parseWav(file: Buffer): PcmClip {
  // wavefile's own message ("Not a supported format.") would not say what the file was not.
  if (file.toString('latin1', 0, 4) !== 'RIFF' || file.toString('latin1', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  const wav = new WaveFile(file);
  const { audioFormat, numChannels, bitsPerSample, sampleRate } = wav.fmt as {
    audioFormat: number;
    numChannels: number;
    bitsPerSample: number;
    sampleRate: number;
  };
  if (audioFormat !== 1 || numChannels !== 1 || bitsPerSample !== 16) {
    throw new Error(`unsupported WAVE format (format ${audioFormat}, ${numChannels} channels, ${bitsPerSample} bits)`);
  }
  return { sampleRate, samples: wav.getSamples(false, Int16Array) as unknown as Int16Array };
}

/** Wraps pcm16 mono samples in a WAVE header (test fixtures, debugging). */
export function encodeWav(clip: PcmClip): Buffer {
  const wav = new WaveFile();
  wav.fromScratch(1, clip.sampleRate, '16', clip.samples);
  return Buffer.from(wav.toBuffer());
}

/**
 * The `aria` voice: Debian's flite CLI, one process per sentence (about 20–40 ms each), its 16 kHz
 * WAVE resampled to the session's 24 kHz. flite writes to a file in a private temporary directory
 * (made per call, so a cleaned-up /tmp cannot break later calls) because Node's child stdio are
 * sockets, which flite cannot open as `/dev/stdout`.
 *
 * Voice choice (measured by recognising flite speech with the engine's own recogniser, 20
 * sentences): rms 6.5% WER, awb 6.5%, slt 16.5%; kal16 is a diphone voice and sounds the most
 * robotic. rms (US English) is the default.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { resampleClip } from '../../../platform/audio/resampler';
import { parseWav } from '../../../platform/audio/wav';
import { alignWords, parsePhoneDurations, SpokenWord } from './word-timing';

export interface SynthesizedSpeech {
  /** pcm16 mono at `sampleRate`. */
  pcm: Int16Array;
  sampleRate: number;
  words: SpokenWord[];
}

export interface FliteOptions {
  binary?: string;
  voice?: string;
  /** Output rate; flite's own rate when null. */
  sampleRate?: number | null;
  timeoutMs?: number;
}

export class FliteSynthesizer {
  private readonly binary: string;
  private readonly voice: string;
  private readonly sampleRate: number | null;
  private readonly timeoutMs: number;

  constructor(options: FliteOptions = {}) {
    this.binary = options.binary ?? 'flite';
    this.voice = options.voice ?? 'rms';
    this.sampleRate = options.sampleRate === undefined ? 24_000 : options.sampleRate;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async synthesize(text: string): Promise<SynthesizedSpeech> {
    const dir = await mkdtemp(join(tmpdir(), 'continuum-flite-'));
    const file = join(dir, 'speech.wav');
    try {
      const phonesOutput = await this.run(['-voice', this.voice, '-psdur', '-t', text, '-o', file]);
      const clip = parseWav(await readFile(file));
      const rate = this.sampleRate ?? clip.sampleRate;
      return {
        pcm: resampleClip(clip.samples, clip.sampleRate, rate),
        sampleRate: rate,
        words: alignWords(text, parsePhoneDurations(phonesOutput)),
      };
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private run(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), this.timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot run ${this.binary}: ${error.message} (install the Debian package flite)`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else reject(new Error(`${this.binary} failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(0, 200)}`));
      });
    });
  }
}

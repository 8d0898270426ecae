/**
 * Decodes an upload with Debian's ffmpeg, run as a bounded child process: one thread, a wall-clock
 * limit, at most `maxAudioSeconds` of output, no network, no other input than the file. ffmpeg reads
 * every container the OpenAI and Deepgram endpoints promise (WAV at any rate and channel count, MP3,
 * FLAC, Ogg/Opus and Vorbis, WebM, M4A/MP4) with the decoders the field trusts; a file M4A keeps its
 * index at the end of is only readable from a seekable file, so the upload is on disk, not piped.
 *
 * The output is the session's audio (pcm16 mono 24 kHz), written to `pcmPath` as it arrives while a
 * loudness profile (mean square per 10 ms) is kept for the silence splitter: memory per request stays
 * the profile's (0.4 MB per hour), whatever the audio's length.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { AppError } from '../../../platform/errors/app-error';
import { type AudioContainer, DEMUXER } from './audio-format';

export const PCM_RATE = 24_000;
/** Samples per loudness window (10 ms). */
export const PROFILE_WINDOW = PCM_RATE / 100;

export interface DecodedAudio {
  pcmPath: string;
  samples: number;
  durationMs: number;
  /** Mean square of each 10 ms window (pcm16 units). */
  profile: Float32Array;
}

export interface RawPcm {
  sampleRate: number;
  channels: number;
}

export interface DecodeOptions {
  inputPath: string;
  /** A container (its demuxer), or headerless pcm16 little-endian at this rate and channel count. */
  container: AudioContainer | RawPcm;
  pcmPath: string;
  maxAudioSeconds: number;
  /** Wall-clock limit for the whole decode. */
  timeoutMs: number;
  /** The binary to run (tests point it elsewhere); `ffmpeg` on PATH by default. */
  binary?: string;
}

/** How much of ffmpeg's stderr is kept for the log (never sent to the client: it names paths). */
const STDERR_KEEP = 2048;

export async function decodeAudio(options: DecodeOptions): Promise<DecodedAudio> {
  const limitSamples = options.maxAudioSeconds * PCM_RATE;
  const args = [
    ...['-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', '1'],
    // Only the file itself: no other protocols, so a crafted playlist cannot make ffmpeg open anything else.
    ...['-protocol_whitelist', 'file', ...inputFormat(options.container), '-i', options.inputPath],
    // One sample past the limit tells "too long" from "exactly the limit".
    ...['-vn', '-sn', '-dn', '-map', '0:a:0', '-ac', '1', '-ar', String(PCM_RATE)],
    ...['-t', String(options.maxAudioSeconds + 0.01), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'],
  ];
  const child = spawn(options.binary ?? 'ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = createWriteStream(options.pcmPath);
  const profile = new ProfileBuilder(limitSamples);
  let stderr = '';
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    if (stderr.length < STDERR_KEEP) stderr += text.slice(0, STDERR_KEEP - stderr.length);
  });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }));
    child.on('close', (code) => resolve({ code }));
  });
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      profile.add(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const { code, error } = await exited;
    if (error) throw new DecoderUnavailableError(error);
    if (timedOut) throw new AppError('invalid_request', 'The audio took too long to decode', { param: 'file' });
    if (code !== 0) throw new UndecodableAudioError(nameOf(options.container), stderr);
    const samples = profile.samples;
    if (samples > limitSamples) {
      throw new AppError('payload_too_large', `The audio is longer than ${options.maxAudioSeconds} s`, {
        param: 'file',
      });
    }
    if (samples === 0) throw new UndecodableAudioError(nameOf(options.container), 'no audio samples');
    return { pcmPath: options.pcmPath, samples, durationMs: (samples * 1000) / PCM_RATE, profile: profile.finish() };
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) child.kill('SIGKILL');
    out.destroy();
  }
}

function inputFormat(container: AudioContainer | RawPcm): string[] {
  if (typeof container === 'string') return ['-f', DEMUXER[container]];
  return ['-f', 's16le', '-ar', String(container.sampleRate), '-ac', String(container.channels)];
}

function nameOf(container: AudioContainer | RawPcm): string {
  return typeof container === 'string' ? container : 'linear16';
}

/** The file is not what its first bytes said, is truncated past use, or holds no audio stream. */
export class UndecodableAudioError extends AppError {
  constructor(
    container: string,
    readonly detail: string,
  ) {
    super('invalid_request', `The file could not be decoded as ${container} audio (corrupt, truncated or no audio)`, {
      param: 'file',
    });
  }
}

/** ffmpeg is not installed or could not start: the service's fault, not the client's. */
export class DecoderUnavailableError extends Error {
  constructor(cause: Error) {
    super(`the audio decoder (ffmpeg) could not run: ${cause.message}`, { cause });
  }
}

/** Mean square per 10 ms window of a pcm16 stream that arrives in chunks of any byte length. */
class ProfileBuilder {
  private readonly windows: number[] = [];
  private carry: Buffer | null = null;
  private sum = 0;
  private inWindow = 0;
  samples = 0;

  constructor(private readonly limitSamples: number) {}

  add(chunk: Buffer): void {
    let data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    const usable = data.length - (data.length % 2);
    this.carry = usable < data.length ? Buffer.from(data.subarray(usable)) : null;
    data = data.subarray(0, usable);
    for (let i = 0; i < data.length && this.samples <= this.limitSamples; i += 2) {
      const s = data.readInt16LE(i);
      this.sum += s * s;
      this.samples++;
      if (++this.inWindow === PROFILE_WINDOW) this.flush();
    }
  }

  finish(): Float32Array {
    if (this.inWindow > 0) this.flush();
    return Float32Array.from(this.windows);
  }

  private flush(): void {
    this.windows.push(this.sum / this.inWindow);
    this.sum = 0;
    this.inWindow = 0;
  }
}

/**
 * Forwards a batch request's file to an OpenAI-compatible `POST /v1/audio/transcriptions` (multipart:
 * `file`, `model`, `response_format`, `timestamp_granularities[]`, `language`, `prompt`) and reads its
 * answer into the engine port's FileTranscript. Bounded: files over `maxBytes` are not sent, the whole
 * exchange has `timeoutMs`, the answer is read up to MAX_ANSWER_BYTES, `maxConcurrent` files at once.
 * Every failure is a FileTranscriptionError in the service's own words: the upstream's address, key
 * and body never reach the client (the upstream's status and error message go to the log only).
 */
import { openAsBlob } from 'node:fs';
import {
  FileTranscriptionError,
  type EngineCapacity,
  type EngineWord,
  type FileTranscriber,
  type FileTranscript,
  type FileTranscriptionRequest,
} from '../../session-core';
import type { EngineLogger } from '../registry/engine-kind';
import type { FileUpstreamSettings } from './file-upstream-settings';

/** A transcript of hours of speech is a few MB of verbose JSON. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export class FileUpstream implements FileTranscriber {
  private inFlight = 0;

  constructor(
    private readonly settings: FileUpstreamSettings,
    /** Read for every request: a rotated key file is picked up. */
    private readonly apiKey: () => string | undefined,
    private readonly logger: EngineLogger,
  ) {}

  capacity(): EngineCapacity {
    return { inUse: this.inFlight, max: this.settings.maxConcurrent };
  }

  async transcribe(request: FileTranscriptionRequest): Promise<FileTranscript> {
    const { maxBytes } = this.settings;
    if (request.bytes > maxBytes)
      throw new FileTranscriptionError('too_large', `the file (${request.bytes} bytes) is over ${maxBytes} bytes`);
    this.inFlight++;
    try {
      return parseAnswer(await this.post(request), request);
    } finally {
      this.inFlight--;
    }
  }

  private async post(request: FileTranscriptionRequest): Promise<unknown> {
    const { url, model, timeoutMs, responseFormat } = this.settings;
    const form = new FormData();
    form.append('file', await openAsBlob(request.path, { type: request.contentType }), request.fileName);
    form.append('model', model);
    form.append('response_format', responseFormat);
    if (responseFormat === 'verbose_json') {
      form.append('timestamp_granularities[]', 'segment');
      form.append('timestamp_granularities[]', 'word');
    }
    if (request.language !== 'auto') form.append('language', request.language);
    if (request.prompt) form.append('prompt', request.prompt);
    const headers: Record<string, string> = { accept: 'application/json' };
    const key = this.apiKey();
    if (key) headers.authorization = `Bearer ${key}`;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([request.signal, deadline]);
    try {
      const response = await fetch(url, { method: 'POST', body: form, headers, signal, redirect: 'error' });
      const body = await readCapped(response);
      if (!response.ok) {
        this.logger.warn(`transcription upstream answered HTTP ${response.status}: ${errorDetail(body)}`);
        if (response.status === 413)
          throw new FileTranscriptionError('too_large', 'the upstream refused the file as too large');
        if (response.status === 408 || response.status === 504)
          throw new FileTranscriptionError('timeout', `the upstream timed out (HTTP ${response.status})`);
        throw new FileTranscriptionError('unavailable', `the upstream answered HTTP ${response.status}`);
      }
      try {
        return JSON.parse(body.toString('utf8')) as unknown;
      } catch {
        throw new FileTranscriptionError('unavailable', 'the upstream answered something other than JSON');
      }
    } catch (error) {
      if (error instanceof FileTranscriptionError) throw error;
      request.signal.throwIfAborted();
      if (deadline.aborted) throw new FileTranscriptionError('timeout', `no answer within ${timeoutMs} ms`);
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      this.logger.warn(`transcription upstream unreachable${cause ? ` (${cause})` : ''}`);
      throw new FileTranscriptionError('unavailable', `the upstream could not be reached${cause ? ` (${cause})` : ''}`);
    }
  }
}

async function readCapped(response: Response): Promise<Buffer> {
  const parts: Buffer[] = [];
  let bytes = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_ANSWER_BYTES) {
      await response.body.cancel().catch(() => undefined);
      throw new FileTranscriptionError('unavailable', `the upstream's answer is over ${MAX_ANSWER_BYTES} bytes`);
    }
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts);
}

/** The upstream's own error message, for the log: `{error: {message}}` or `{detail}`, cut short. */
function errorDetail(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: { message?: unknown } | string; detail?: unknown };
    const message =
      typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.detail ?? '(no message)');
    return String(typeof message === 'string' ? message : JSON.stringify(message)).slice(0, 300);
  } catch {
    return '(not JSON)';
  }
}

interface UpstreamSegment {
  start: number;
  end: number;
  text: string;
  avg_logprob?: number;
}
interface UpstreamWord {
  word: string;
  start: number;
  end: number;
  probability?: number;
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const ms = (seconds: number) => Math.max(0, Math.round(seconds * 1000));

/**
 * OpenAI's `verbose_json` (segments with `avg_logprob`, words) or `json` (the text alone) → segments
 * with words placed by time. A segment's confidence is exp(avg_logprob) when given, else 0.
 */
export function parseAnswer(answer: unknown, request: Pick<FileTranscriptionRequest, 'durationMs'>): FileTranscript {
  const unreadable = () => new FileTranscriptionError('unavailable', 'the upstream answered an unreadable transcript');
  if (typeof answer !== 'object' || answer === null || typeof (answer as { text?: unknown }).text !== 'string')
    throw unreadable();
  const {
    text,
    segments: rawSegments,
    words: rawWords,
  } = answer as { text: string; segments?: unknown; words?: unknown };
  const segments = rawSegments === undefined || rawSegments === null ? [] : rawSegments;
  const wordList = rawWords === undefined || rawWords === null ? [] : rawWords;
  if (!Array.isArray(segments) || !Array.isArray(wordList)) throw unreadable();
  for (const s of segments as UpstreamSegment[])
    if (typeof s !== 'object' || s === null || !finite(s.start) || !finite(s.end) || typeof s.text !== 'string')
      throw unreadable();
  for (const w of wordList as UpstreamWord[])
    if (typeof w !== 'object' || w === null || !finite(w.start) || !finite(w.end) || typeof w.word !== 'string')
      throw unreadable();
  const words: EngineWord[] = (wordList as UpstreamWord[]).map((w) => ({
    word: w.word.trim(),
    startMs: ms(w.start),
    endMs: Math.max(ms(w.start), ms(w.end)),
    confidence: finite(w.probability) ? Math.min(1, Math.max(0, w.probability)) : 0,
  }));
  if (segments.length === 0) {
    const whole = text.trim();
    return {
      text: whole,
      segments:
        whole === ''
          ? []
          : [{ startMs: 0, endMs: words.at(-1)?.endMs ?? request.durationMs, text: whole, confidence: 0, words }],
    };
  }
  const out = (segments as UpstreamSegment[])
    .map((s) => ({
      startMs: ms(s.start),
      endMs: Math.max(ms(s.start), ms(s.end)),
      text: s.text.trim(),
      confidence: finite(s.avg_logprob) ? Math.min(1, Math.exp(s.avg_logprob)) : 0,
      words: [] as EngineWord[],
    }))
    .filter((s) => s.text !== '');
  // Each word to the last segment starting at or before it.
  for (const word of words) {
    let home = out[0];
    for (const segment of out) if (segment.startMs <= word.startMs) home = segment;
    home?.words.push(word);
  }
  return { text: text.trim(), segments: out };
}

/**
 * OpenAI's `response_format`s for one transcript, as the `openai` SDK's types define them
 * (`Transcription`, `TranscriptionVerbose`, and the SSE events of `stream=true`). Times are seconds.
 * What the engine does not produce is stated, not invented: `tokens` is empty, `temperature` 0,
 * `avg_logprob` the log of the segment's word confidence, `compression_ratio` 1, `no_speech_prob` 0.
 */
import type { TranscriptResult } from '../transcription.types';

export const RESPONSE_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
export type Granularity = 'segment' | 'word';

export interface Rendered {
  contentType: string;
  body: string | object;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

export function fullText(result: TranscriptResult): string {
  return result.segments.map((s) => s.text).join(' ');
}

/** `usage` as OpenAI bills whisper: by duration, here the seconds the session was billed for. */
export function durationUsage(result: TranscriptResult) {
  return { type: 'duration' as const, seconds: result.billedSeconds };
}

/** ISO-639-1 → the English name OpenAI's verbose_json gives (`english`); unknown tags as given. */
const LANGUAGE_NAMES: Record<string, string> = {
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  nl: 'dutch',
  pt: 'portuguese',
};

export function render(result: TranscriptResult, format: ResponseFormat, granularities: Granularity[]): Rendered {
  const text = fullText(result);
  switch (format) {
    case 'json':
      return { contentType: 'application/json', body: { text, usage: durationUsage(result) } };
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${text}\n` };
    case 'srt':
      return { contentType: 'text/plain; charset=utf-8', body: subtitles(result, 'srt') };
    case 'vtt':
      return { contentType: 'text/vtt; charset=utf-8', body: subtitles(result, 'vtt') };
    case 'verbose_json':
      return { contentType: 'application/json', body: verbose(result, text, granularities) };
  }
}

function verbose(result: TranscriptResult, text: string, granularities: Granularity[]) {
  const language = result.language.split('-')[0].toLowerCase();
  // As OpenAI: segments unless only words were asked for.
  const segments = granularities.length === 0 || granularities.includes('segment');
  return {
    task: 'transcribe',
    language: LANGUAGE_NAMES[language] ?? (result.language === 'auto' ? 'english' : result.language),
    duration: seconds(result.durationMs),
    text,
    ...(segments
      ? {
          segments: result.segments.map((s, id) => ({
            id,
            seek: 0,
            start: seconds(s.startMs),
            end: seconds(s.endMs),
            text: s.text,
            tokens: [],
            temperature: 0,
            avg_logprob: s.confidence > 0 ? Math.log(s.confidence) : -10,
            compression_ratio: 1,
            no_speech_prob: 0,
          })),
        }
      : {}),
    ...(granularities.includes('word')
      ? {
          words: result.segments.flatMap((s) =>
            s.words.map((w) => ({ word: w.word, start: seconds(w.startMs), end: seconds(w.endMs) })),
          ),
        }
      : {}),
    usage: durationUsage(result),
  };
}

function subtitles(result: TranscriptResult, kind: 'srt' | 'vtt'): string {
  const stamp = (ms: number) => {
    const total = Math.max(0, Math.round(ms));
    const h = Math.floor(total / 3_600_000);
    const m = Math.floor(total / 60_000) % 60;
    const s = Math.floor(total / 1000) % 60;
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    return `${pad(h)}:${pad(m)}:${pad(s)}${kind === 'srt' ? ',' : '.'}${pad(total % 1000, 3)}`;
  };
  const cues = result.segments.map(
    (s, i) => `${kind === 'srt' ? `${i + 1}\n` : ''}${stamp(s.startMs)} --> ${stamp(s.endMs)}\n${s.text}\n`,
  );
  return kind === 'srt' ? cues.join('\n') : `WEBVTT\n\n${cues.join('\n')}`;
}

/** One server-sent event of `stream=true`. */
export function sseEvent(data: object): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

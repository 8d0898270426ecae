/**
 * Deepgram's prerecorded answer (`ListenV1Response` in @deepgram/sdk 5): `metadata` with the session id
 * as `request_id` and the audio's duration, one channel (the audio is mixed to mono) with one
 * alternative, and `utterances` (the engine's turns) when asked for. With `punctuate` or
 * `smart_format`, each utterance starts with a capital and ends with a full stop, in `punctuated_word`
 * and the transcript (the recogniser itself writes lower case without punctuation).
 */
import { randomUUID } from 'node:crypto';
import type { TranscriptResult, TranscriptSegment } from '../transcription.types';

export interface DeepgramOptions {
  punctuate: boolean;
  utterances: boolean;
}

/** A stable model uuid per model name (Deepgram's `models` lists uuids that `model_info` describes). */
const MODEL_UUIDS = new Map<string, string>();

const seconds = (ms: number) => Math.round(ms) / 1000;

export function deepgramResponse(result: TranscriptResult, options: DeepgramOptions) {
  let uuid = MODEL_UUIDS.get(result.model);
  if (uuid === undefined) MODEL_UUIDS.set(result.model, (uuid = randomUUID()));
  const utterances = result.segments.map((segment) => utterance(segment, options.punctuate));
  const words = utterances.flatMap((u) => u.words);
  const confidence = words.length === 0 ? 0 : words.reduce((sum, w) => sum + w.confidence, 0) / words.length;
  return {
    metadata: {
      transaction_key: 'deprecated',
      request_id: result.sessionId,
      sha256: result.sha256,
      created: result.createdAt.toISOString(),
      duration: seconds(result.durationMs),
      channels: result.channels,
      models: [uuid],
      model_info: { [uuid]: { name: result.model, version: '1', arch: 'continuum' } },
    },
    results: {
      channels: [
        {
          alternatives: [
            {
              transcript: utterances.map((u) => u.transcript).join(' '),
              confidence: round(confidence),
              words: words.map(({ word, start, end, confidence: c, punctuated_word }) => ({
                word,
                start,
                end,
                confidence: c,
                ...(options.punctuate ? { punctuated_word } : {}),
              })),
            },
          ],
        },
      ],
      ...(options.utterances
        ? {
            utterances: utterances.map((u, i) => ({
              start: u.start,
              end: u.end,
              confidence: u.confidence,
              channel: 0,
              transcript: u.transcript,
              words: u.words,
              id: `${result.sessionId}-${i}`,
            })),
          }
        : {}),
    },
  };
}

function utterance(segment: TranscriptSegment, punctuate: boolean) {
  const words = segment.words.map((w, i, all) => {
    let punctuated = w.word;
    if (punctuate && i === 0) punctuated = punctuated.charAt(0).toUpperCase() + punctuated.slice(1);
    if (punctuate && i === all.length - 1) punctuated += '.';
    return {
      word: w.word,
      start: seconds(w.startMs),
      end: seconds(w.endMs),
      confidence: round(w.confidence),
      punctuated_word: punctuated,
    };
  });
  return {
    start: seconds(segment.startMs),
    end: seconds(segment.endMs),
    confidence: round(segment.confidence),
    transcript: punctuate && words.length > 0 ? words.map((w) => w.punctuated_word).join(' ') : segment.text,
    words,
  };
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

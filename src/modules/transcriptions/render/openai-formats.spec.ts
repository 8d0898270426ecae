import type { TranscriptResult } from '../transcription.types';
import { render } from './openai-formats';

const result: TranscriptResult = {
  sessionId: 'sess_1',
  model: 'vendor-asr-streaming',
  language: 'en',
  durationMs: 3725,
  billedSeconds: 3.76,
  channels: 1,
  sha256: 'x',
  createdAt: new Date(0),
  segments: [
    {
      startMs: 400,
      endMs: 1500,
      text: 'hello there',
      confidence: 0.5,
      words: [
        { word: 'hello', startMs: 400, endMs: 900, confidence: 0.6 },
        { word: 'there', startMs: 900, endMs: 1500, confidence: 0.4 },
      ],
    },
    { startMs: 3_661_001, endMs: 3_662_500, text: 'bye', confidence: 1, words: [] },
  ],
};

describe('OpenAI response formats', () => {
  it('json and text', () => {
    expect(render(result, 'json', []).body).toEqual({
      text: 'hello there bye',
      usage: { type: 'duration', seconds: 3.76 },
    });
    expect(render(result, 'text', [])).toEqual({ contentType: 'text/plain; charset=utf-8', body: 'hello there bye\n' });
  });

  it('srt and vtt cues with hours, minutes, seconds and milliseconds', () => {
    expect(render(result, 'srt', []).body).toBe(
      '1\n00:00:00,400 --> 00:00:01,500\nhello there\n\n2\n01:01:01,001 --> 01:01:02,500\nbye\n',
    );
    expect(render(result, 'vtt', []).body).toBe(
      'WEBVTT\n\n00:00:00.400 --> 00:00:01.500\nhello there\n\n01:01:01.001 --> 01:01:02.500\nbye\n',
    );
  });

  it('verbose_json: segments by default, words when asked, the language by name', () => {
    const plain = render(result, 'verbose_json', []).body as Record<string, unknown>;
    expect(plain).toMatchObject({ task: 'transcribe', language: 'english', duration: 3.725, text: 'hello there bye' });
    expect(plain.segments).toHaveLength(2);
    expect(plain.words).toBeUndefined();
    const words = render(result, 'verbose_json', ['word']).body as Record<string, unknown>;
    expect(words.segments).toBeUndefined();
    expect(words.words).toEqual([
      { word: 'hello', start: 0.4, end: 0.9 },
      { word: 'there', start: 0.9, end: 1.5 },
    ]);
  });
});

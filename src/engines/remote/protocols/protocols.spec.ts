import { OpenAiRealtimeProtocol } from './openai-realtime.protocol';
import { VllmRealtimeProtocol } from './vllm-realtime.protocol';
import { MalformedMessage } from './worker-protocol';

describe('worker protocols', () => {
  it('OpenAI Realtime: transcription intent, manual turns at the worker, one commit per utterance', () => {
    const p = new OpenAiRealtimeProtocol('vendor-asr-streaming', 24_000, 'en');
    expect(p.url(new URL('ws://w:8080/v1/realtime')).href).toBe('ws://w:8080/v1/realtime?intent=transcription');
    expect(JSON.parse(p.opening()[0])).toEqual({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24_000 },
            transcription: { model: 'vendor-asr-streaming', language: 'en' },
            turn_detection: null,
          },
        },
      },
    });
    expect(p.begin()).toEqual([]);
    expect(p.end().map((m) => JSON.parse(m))).toEqual([{ type: 'input_audio_buffer.commit' }]);
    expect(JSON.parse(p.append('AAAA'))).toEqual({ type: 'input_audio_buffer.append', audio: 'AAAA' });
    expect(p.decode('{"type":"conversation.item.input_audio_transcription.delta","delta":" hi"}')).toEqual({
      kind: 'delta',
      text: ' hi',
    });
    expect(p.decode('{"type":"conversation.item.input_audio_transcription.completed","transcript":"hi"}')).toEqual({
      kind: 'done',
      text: 'hi',
    });
    expect(
      p.decode('{"type":"conversation.item.input_audio_transcription.failed","error":{"code":"x","message":"no"}}'),
    ).toEqual({ kind: 'error', message: 'x: no' });
    expect(p.decode('{"type":"input_audio_buffer.committed"}')).toEqual({ kind: 'other' });
    const auto = new OpenAiRealtimeProtocol('m', 24_000, 'auto');
    expect(JSON.parse(auto.opening()[0]).session.audio.input.transcription).toEqual({ model: 'm' });
  });

  it('vLLM Realtime: session.update {model}, a commit starts a generation, commit final ends it', () => {
    const p = new VllmRealtimeProtocol('voxtral');
    expect(p.opening().map((m) => JSON.parse(m))).toEqual([{ type: 'session.update', model: 'voxtral' }]);
    expect(p.begin().map((m) => JSON.parse(m))).toEqual([{ type: 'input_audio_buffer.commit' }]);
    expect(p.end().map((m) => JSON.parse(m))).toEqual([{ type: 'input_audio_buffer.commit', final: true }]);
    expect(p.decode('{"type":"transcription.delta","delta":"a"}')).toEqual({ kind: 'delta', text: 'a' });
    expect(p.decode('{"type":"transcription.done","text":"a b","usage":{}}')).toEqual({ kind: 'done', text: 'a b' });
    expect(p.decode('{"type":"error","error":"bad audio","code":"invalid_audio"}')).toEqual({
      kind: 'error',
      message: 'bad audio',
    });
    expect(p.decode('{"type":"session.created","id":"s"}')).toEqual({ kind: 'created' });
  });

  it.each(['not json', '[1,2]', '{"no":"type"}', 'null'])('calls %j malformed', (text) => {
    expect(() => new VllmRealtimeProtocol('m').decode(text)).toThrow(MalformedMessage);
  });
});

import { AppError } from '../../../platform/errors/app-error';
import { parseRealtimeFrame } from './realtime.protocol';
import { checkRealtimeQuery } from './realtime.query';
import { resolveSessionUpdate } from './realtime.session-update';

const context = { maxMessageBytes: 1024 };
const parse = (event: unknown) => parseRealtimeFrame(JSON.stringify(event), false, context);

describe('parseRealtimeFrame', () => {
  it('reads the SDK-shaped append without JSON.parse and any other append with it', () => {
    const audio = Buffer.from([1, 0, 2, 0]).toString('base64');
    expect(parseRealtimeFrame(`{"type":"input_audio_buffer.append","audio":"${audio}"}`, false, context)).toEqual({
      type: 'append',
      audio: Buffer.from([1, 0, 2, 0]),
    });
    expect(parse({ event_id: 'a1', type: 'input_audio_buffer.append', audio })).toEqual({
      type: 'append',
      audio: Buffer.from([1, 0, 2, 0]),
      clientEventId: 'a1',
    });
  });

  it('maps commit and clear, with the event_id', () => {
    expect(parse({ type: 'input_audio_buffer.commit', event_id: 'c' })).toEqual({ type: 'commit', clientEventId: 'c' });
    expect(parse({ type: 'input_audio_buffer.clear' })).toEqual({ type: 'clear' });
  });

  it.each([
    ['bad JSON', '{', 'invalid_json', null],
    ['no type', '{"audio":"AAAA"}', 'invalid_event', 'type'],
    ['a numeric event_id', '{"type":"input_audio_buffer.commit","event_id":1}', 'invalid_type', 'event_id'],
    ['bad base64', '{"type":"input_audio_buffer.append","audio":"A*A="}', 'invalid_audio', 'audio'],
    ['base64 of the wrong length', '{"type":"input_audio_buffer.append","audio":"AAA"}', 'invalid_audio', 'audio'],
    ['the beta update', '{"type":"transcription_session.update","session":{}}', 'invalid_value', 'type'],
    ['a conversation event', '{"type":"response.create"}', 'unsupported_event', 'type'],
    ['an unknown event', '{"type":"session.start"}', 'invalid_value', 'type'],
  ])('refuses %s', (_name, text, code, param) => {
    expect(parseRealtimeFrame(text, false, context)).toMatchObject({ type: 'reject', code, param });
  });

  it('refuses binary frames and oversized ones', () => {
    expect(parseRealtimeFrame(Buffer.alloc(4), true, context)).toMatchObject({ code: 'invalid_event' });
    expect(parseRealtimeFrame('x'.repeat(2000), false, context)).toMatchObject({ code: 'message_too_large' });
  });
});

describe('resolveSessionUpdate', () => {
  it('turns what the SDK sends into engine changes; OpenAI model names mean the streaming model', () => {
    const session = {
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          noise_reduction: { type: 'near_field' },
          transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: '' },
          turn_detection: { type: 'server_vad', threshold: 0.6, prefix_padding_ms: 200, silence_duration_ms: 700 },
        },
      },
      include: ['item.input_audio_transcription.logprobs'],
    };
    expect(resolveSessionUpdate(session, 'u1')).toEqual({
      type: 'update',
      clientEventId: 'u1',
      param: 'session.audio.input.turn_detection',
      changes: {
        language: 'en',
        turnDetection: { type: 'server_vad', threshold: 0.6, prefixPaddingMs: 200, silenceDurationMs: 700 },
        audioFormats: { input: 'pcm16', output: 'pcm16' },
      },
    });
  });

  it.each([
    [{ type: 'audio/pcmu' }, 'pcmu'],
    [{ type: 'audio/pcma', rate: 8000 }, 'pcma'],
    ['g711_ulaw', 'pcmu'],
    ['g711_alaw', 'pcma'],
    ['pcm16', 'pcm16'],
  ])('takes the input format %j (G.711 as OpenAI serves it)', (format, input) => {
    expect(resolveSessionUpdate({ audio: { input: { format } } }, undefined)).toMatchObject({
      changes: { audioFormats: { input, output: 'pcm16' } },
    });
  });

  it('changes only what is present; null turns VAD off and a null language detects it', () => {
    expect(resolveSessionUpdate({ type: 'transcription' }, undefined)).toMatchObject({ type: 'update', changes: {} });
    expect(resolveSessionUpdate({ audio: { input: { turn_detection: null } } }, undefined)).toMatchObject({
      changes: { turnDetection: null },
    });
    expect(resolveSessionUpdate({ audio: { input: { transcription: { language: null } } } }, undefined)).toEqual({
      type: 'update',
      param: 'session.audio.input.transcription.language',
      changes: { language: 'auto' },
    });
    expect(resolveSessionUpdate({ audio: { input: { turn_detection: {} } } }, undefined)).toMatchObject({
      changes: { turnDetection: { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } },
    });
  });

  it.each(['gpt-realtime-whisper', 'gpt-live-transcribe'])(
    'turns server VAD off for %s, which its clients commit themselves, unless the update asks for it',
    (model) => {
      const transcription = { model, language: 'en' };
      expect(resolveSessionUpdate({ audio: { input: { transcription } } }, undefined)).toMatchObject({
        changes: { language: 'en', turnDetection: null },
        param: 'session.audio.input.turn_detection',
      });
      const asked = { transcription, turn_detection: { type: 'server_vad' } };
      expect(resolveSessionUpdate({ audio: { input: asked } }, undefined)).toMatchObject({
        changes: { turnDetection: { type: 'server_vad' } },
      });
      expect(
        resolveSessionUpdate({ audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } }, undefined),
      ).toEqual({ type: 'update', param: 'session.audio.input.transcription.language', changes: {} });
    },
  );

  it.each([
    ['no session', undefined, 'missing_required_parameter', 'session'],
    ['a realtime session', { type: 'realtime' }, 'invalid_value', 'session.type'],
    ['an unknown field', { instructions: 'x' }, 'unknown_parameter', 'session.instructions'],
    ['audio output', { audio: { output: {} } }, 'unknown_parameter', 'session.audio.output'],
    [
      'G.711 at 16 kHz',
      { audio: { input: { format: { type: 'audio/pcmu', rate: 16000 } } } },
      'unsupported_audio_format',
      'session.audio.input.format',
    ],
    [
      'Opus',
      { audio: { input: { format: { type: 'audio/opus' } } } },
      'unsupported_audio_format',
      'session.audio.input.format',
    ],
    [
      '16 kHz',
      { audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
      'unsupported_audio_format',
      'session.audio.input.format',
    ],
    [
      'another model',
      { audio: { input: { transcription: { model: 'gpt-4o' } } } },
      'invalid_value',
      'session.audio.input.transcription.model',
    ],
    [
      'a bad language',
      { audio: { input: { transcription: { language: 'English' } } } },
      'invalid_value',
      'session.audio.input.transcription.language',
    ],
    [
      'a bad delay',
      { audio: { input: { transcription: { delay: 'soon' } } } },
      'invalid_value',
      'session.audio.input.transcription.delay',
    ],
    [
      'semantic VAD',
      { audio: { input: { turn_detection: { type: 'semantic_vad' } } } },
      'invalid_value',
      'session.audio.input.turn_detection.type',
    ],
    [
      'a threshold above 1',
      { audio: { input: { turn_detection: { threshold: 2 } } } },
      'invalid_value',
      'session.audio.input.turn_detection.threshold',
    ],
    [
      'fractional ms',
      { audio: { input: { turn_detection: { silence_duration_ms: 1.5 } } } },
      'invalid_type',
      'session.audio.input.turn_detection.silence_duration_ms',
    ],
    [
      'a bad noise reduction',
      { audio: { input: { noise_reduction: { type: 'studio' } } } },
      'invalid_value',
      'session.audio.input.noise_reduction.type',
    ],
    ['other includes', { include: ['item.other'] }, 'invalid_value', 'session.include'],
  ])('refuses %s', (_name, session, code, param) => {
    expect(resolveSessionUpdate(session, 'e')).toEqual({
      type: 'reject',
      code,
      message: expect.any(String),
      param,
      clientEventId: 'e',
    });
  });
});

describe('checkRealtimeQuery', () => {
  it.each([
    '/v1/realtime?intent=transcription',
    '/v1/realtime',
    '/v1/realtime?model=vendor-asr-streaming',
    '/v1/realtime?model=whisper-1&token=ek_1',
  ])('accepts %s', (url) => expect(() => checkRealtimeQuery(url, { modelAliases: new Map() })).not.toThrow());

  it.each([
    ['/v1/realtime?model=gpt-unknown', 'model'],
    ['/v1/realtime?model=vendor-voicechat&intent=transcription', 'model'],
    ['/v1/realtime?intent=speech', 'intent'],
    ['/v1/realtime?call_id=rtc_1', 'call_id'],
  ])('refuses %s with invalid_parameter', (url, param) => {
    let error: unknown;
    try {
      checkRealtimeQuery(url, { modelAliases: new Map() });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'invalid_parameter', param, status: 400 });
  });
});

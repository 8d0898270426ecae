import { checkRealtimeQuery } from '../realtime.query';
import { Refusal } from './conversation.fields';
import { EAGERNESS, parseConversationUpdate } from './conversation.session-update';

const aliases = new Map([['gpt-realtime', 'vendor-voicechat']]);
const parse = (session: unknown) => parseConversationUpdate(session, 'vendor-voicechat', aliases);
const refusal = (session: unknown): Refusal => {
  try {
    parse(session);
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('accepted');
};

describe('parseConversationUpdate', () => {
  it.each([
    ['low', 0.85],
    ['medium', 0.7],
    ['auto', 0.7],
    ['high', 0.55],
  ])('maps semantic_vad eagerness %s to end-of-turn confidence %s', (eagerness, eotThreshold) => {
    const update = parse({ audio: { input: { turn_detection: { type: 'semantic_vad', eagerness } } } });
    expect(update.turnDetection).toMatchObject({ type: 'server_vad', endOfTurn: { eotThreshold } });
    expect(update.turnDetection!.endOfTurn).toEqual(EAGERNESS[eagerness]);
  });

  it('takes G.711 in and out, in GA objects or the older names, and leaves an unnamed direction alone', () => {
    const both = { input: { format: { type: 'audio/pcmu' } }, output: { format: { type: 'audio/pcmu' } } };
    expect(parse({ audio: both }).audioFormats).toEqual({ input: 'pcmu', output: 'pcmu' });
    expect(parse({ audio: { output: { format: 'g711_alaw' } } }).audioFormats).toEqual({ output: 'pcma' });
    expect(parse({ instructions: 'x' }).audioFormats).toBeUndefined();
  });

  it('takes server_vad as silence-ended turns, create_response as a setting, null as manual turns', () => {
    const vad = parse({
      audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 800, create_response: false } } },
    });
    expect(vad.turnDetection).toEqual({
      type: 'server_vad',
      threshold: 0.5,
      prefixPaddingMs: 300,
      silenceDurationMs: 800,
    });
    expect(vad.settings.createResponse).toBe(false);
    const manual = parse({ audio: { input: { turn_detection: null } } });
    expect(manual.turnDetection).toBeNull();
    expect(manual.settings.createResponse).toBe(false);
  });

  it('takes idle_timeout_ms (server_vad, 5000..30000, null: off) and interrupt_response, and shows them', () => {
    const vad = parse({
      audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 8000, interrupt_response: false } } },
    });
    expect(vad).toMatchObject({ idleTimeoutMs: 8000, interruptResponse: false });
    expect(vad.view.turnDetection).toMatchObject({ idle_timeout_ms: 8000, interrupt_response: false });
    // A turn_detection object replaces the whole setting, as OpenAI's: what it leaves out is the default.
    const plain = parse({ audio: { input: { turn_detection: { type: 'server_vad' } } } });
    expect(plain).toMatchObject({ idleTimeoutMs: null, interruptResponse: true });
    expect(plain.view.turnDetection).toMatchObject({ idle_timeout_ms: null, interrupt_response: true });
    const semantic = parse({
      audio: { input: { turn_detection: { type: 'semantic_vad', idle_timeout_ms: null, interrupt_response: false } } },
    });
    expect(semantic).toMatchObject({ idleTimeoutMs: null, interruptResponse: false });
    expect(semantic.view.turnDetection).toMatchObject({ type: 'semantic_vad', interrupt_response: false });
    expect(parse({ audio: { input: { turn_detection: null } } })).toMatchObject({
      idleTimeoutMs: null,
      interruptResponse: true,
    });
    expect(parse({ instructions: 'x' })).not.toHaveProperty('idleTimeoutMs');
  });

  it('reads instructions, tools, tool choice, modalities and token limit; the model may be named by its alias', () => {
    const update = parse({
      model: 'gpt-realtime',
      instructions: 'Be kind.',
      output_modalities: ['text'],
      tool_choice: { type: 'function', name: 'clock' },
      max_output_tokens: 'inf',
      tools: [{ type: 'function', name: 'clock' }],
    });
    expect(update.settings).toEqual({
      instructions: 'Be kind.',
      audio: false,
      toolChoice: { name: 'clock' },
      maxOutputTokens: null,
      tools: [{ name: 'clock', description: '', parameters: { type: 'object', properties: {} } }],
    });
  });

  it.each([
    [{ model: 'gpt-4o' }, 'invalid_value', 'session.model'],
    [{ output_modalities: ['audio', 'text'] }, 'invalid_value', 'session.output_modalities'],
    [{ max_output_tokens: 0 }, 'invalid_value', 'session.max_output_tokens'],
    [{ tools: [{ type: 'function', name: 'a b' }] }, 'invalid_value', 'session.tools[0].name'],
    [
      {
        tools: [
          { type: 'function', name: 'a' },
          { type: 'function', name: 'a' },
        ],
      },
      'invalid_value',
      'session.tools[1].name',
    ],
    [
      { audio: { input: { turn_detection: { type: 'semantic_vad', eagerness: 'eager' } } } },
      'invalid_value',
      'session.audio.input.turn_detection.eagerness',
    ],
    [
      { audio: { input: { turn_detection: { type: 'semantic_vad', idle_timeout_ms: 5000 } } } },
      'unsupported_parameter',
      'session.audio.input.turn_detection.idle_timeout_ms',
    ],
    [
      { audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 4999 } } } },
      'invalid_value',
      'session.audio.input.turn_detection.idle_timeout_ms',
    ],
    [
      { audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 30_001 } } } },
      'invalid_value',
      'session.audio.input.turn_detection.idle_timeout_ms',
    ],
    [
      { audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 6000.5 } } } },
      'invalid_type',
      'session.audio.input.turn_detection.idle_timeout_ms',
    ],
    [
      { audio: { input: { turn_detection: { type: 'server_vad', interrupt_response: 'no' } } } },
      'invalid_type',
      'session.audio.input.turn_detection.interrupt_response',
    ],
    [
      { audio: { input: { format: { type: 'audio/pcmu', rate: 24000 } } } },
      'unsupported_audio_format',
      'session.audio.input.format',
    ],
    [{ audio: { output: { format: 'g729' } } }, 'unsupported_audio_format', 'session.audio.output.format'],
    [
      { audio: { input: { transcription: { model: 'nova-3' } } } },
      'invalid_value',
      'session.audio.input.transcription.model',
    ],
    [{ truncation: { type: 'retention_ratio' } }, 'unsupported_parameter', 'session.truncation'],
    [{ colour: 'blue' }, 'unknown_parameter', 'session.colour'],
  ])('refuses %j', (session, code, param) => {
    expect(refusal(session)).toMatchObject({ code, param });
  });
});

describe('checkRealtimeQuery (conversation)', () => {
  const context = { modelAliases: aliases };
  it('a conversation model or its alias opens a conversation; nothing, or a transcription model, transcribes', () => {
    expect(checkRealtimeQuery('/v1/realtime?model=vendor-voicechat', context)).toMatchObject({
      type: 'live',
      model: 'vendor-voicechat',
    });
    expect(checkRealtimeQuery('/v1/realtime?model=gpt-realtime', context)).toMatchObject({
      type: 'live',
      model: 'vendor-voicechat',
    });
    expect(checkRealtimeQuery('/v1/realtime', context)).toMatchObject({ type: 'transcription' });
    expect(checkRealtimeQuery('/v1/realtime?model=whisper-1', context)).toMatchObject({ type: 'transcription' });
    expect(() => checkRealtimeQuery('/v1/realtime?model=gpt-realtime', { modelAliases: new Map() })).toThrow(
      /not served/,
    );
  });
});

import { DEFAULT_END_OF_TURN } from '../model/defaults';
import { conversationTurns, MANUAL_TURNS } from './conversation.rules';
import { unservedByEngine } from './engine-abilities';
import { realtimeTurnDetectionView } from './realtime.view';
import { decodeSecretConversation, encodeSecretConversation } from './secret-settings.codec';
import { SettingRefusal } from './setting-refusal';
import { AUDIO_FORMATS, checkFormat, EAGERNESS } from './settings.rules';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof SettingRefusal) return { code: error.code, param: error.param };
    throw error;
  }
  return null;
};

describe('the settings rules', () => {
  it('serves the audio formats of its table, each at its rate, and names them when it refuses one', () => {
    expect(Object.keys(AUDIO_FORMATS)).toEqual(['audio/pcm']);
    expect(refusal(() => checkFormat({ type: 'audio/pcm' }, 'f'))).toBeNull();
    expect(refusal(() => checkFormat({ type: 'audio/pcm', rate: 24000 }, 'f'))).toBeNull();
    expect(refusal(() => checkFormat({ type: 'audio/pcm', rate: 16000 }, 'f'))).toEqual({
      code: 'unsupported_audio_format',
      param: 'f',
    });
    expect(checkFormat({ type: 'audio/pcmu' }, 'f')).toBe('pcmu');
    expect(refusal(() => checkFormat({ type: 'audio/opus' }, 'f'))).toMatchObject({ code: 'unsupported_audio_format' });
  });

  it('reads server_vad with its numbers and semantic_vad with its eagerness, each refusing the other’s fields', () => {
    const server = conversationTurns({ type: 'server_vad', silence_duration_ms: 50, idle_timeout_ms: 5000 }, 'td');
    expect(server).toMatchObject({ turnDetection: { silenceDurationMs: 50 }, idleTimeoutMs: 5000, semantic: null });
    const semantic = conversationTurns({ type: 'semantic_vad', eagerness: 'low', interrupt_response: false }, 'td');
    expect(semantic.turnDetection!.endOfTurn).toEqual(EAGERNESS.low);
    expect(EAGERNESS.auto).toBe(DEFAULT_END_OF_TURN);
    expect(realtimeTurnDetectionView(semantic)).toEqual({
      type: 'semantic_vad',
      eagerness: 'low',
      create_response: true,
      interrupt_response: false,
    });
    expect(conversationTurns(null, 'td')).toBe(MANUAL_TURNS);
    expect(refusal(() => conversationTurns({ type: 'semantic_vad', threshold: 0.5 }, 'td'))).toEqual({
      code: 'unknown_parameter',
      param: 'td.threshold',
    });
    expect(refusal(() => conversationTurns({ eagerness: 'low' }, 'td'))).toEqual({
      code: 'unknown_parameter',
      param: 'td.eagerness',
    });
    expect(refusal(() => conversationTurns({ type: 'semantic_vad', idle_timeout_ms: 5000 }, 'td'))).toEqual({
      code: 'unsupported_parameter',
      param: 'td.idle_timeout_ms',
    });
  });

  it('refuses what an engine that answers by itself cannot serve, and tools to an engine without them', () => {
    const selfAnswering = { responses: false, tools: false };
    expect(unservedByEngine({ interruptResponse: false }, selfAnswering, 'm')?.param).toBe(
      'session.audio.input.turn_detection.interrupt_response',
    );
    expect(unservedByEngine({ idleTimeoutMs: 5000 }, selfAnswering, 'm')?.param).toBe(
      'session.audio.input.turn_detection.idle_timeout_ms',
    );
    expect(unservedByEngine({ tools: [{}] }, selfAnswering, 'm')?.param).toBe('session.tools');
    expect(
      unservedByEngine({ interruptResponse: false, idleTimeoutMs: 5000 }, { responses: true, tools: true }, 'm'),
    ).toBeNull();
  });

  it('stores what a secret named, reads it back, and reads no record of another version', () => {
    expect(encodeSecretConversation({ settings: {} })).toBeNull();
    const turns = conversationTurns({ create_response: false }, 'td');
    const stored = encodeSecretConversation({ settings: { instructions: 'Hi.' }, turns });
    expect(decodeSecretConversation(JSON.parse(JSON.stringify(stored)))).toEqual({
      settings: { instructions: 'Hi.' },
      turns,
    });
    expect(decodeSecretConversation({ instructions: 'Hi.' })).toBeNull();
    expect(decodeSecretConversation(null)).toBeNull();
  });
});

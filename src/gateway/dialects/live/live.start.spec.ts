import type { SessionConfig } from '../../../session-core/model/session.types';
import { DEFAULT_END_OF_TURN, DEFAULT_VAD } from '../../../session-core';
import { checkLiveUpdate, resolveLiveStart } from './live.start';

const start = (session: unknown, lock: SessionConfig | null = null) => resolveLiveStart(session, 'c1', lock);
const LOCK: SessionConfig = {
  type: 'live',
  model: 'vendor-voicechat',
  voice: 'aria',
  language: 'en',
  turnDetection: null,
  outputEncoding: 'binary',
};

describe('resolveLiveStart', () => {
  it('resolves the defaults of an API-key session', () => {
    expect(start({ model: 'vendor-voicechat' })).toEqual({
      type: 'start',
      clientEventId: 'c1',
      config: {
        type: 'live',
        model: 'vendor-voicechat',
        voice: 'aria',
        language: 'auto',
        turnDetection: { ...DEFAULT_VAD, endOfTurn: DEFAULT_END_OF_TURN },
        outputEncoding: 'base64',
      },
    });
    expect(resolveLiveStart({ model: 'vendor-voicechat' }, undefined, null)).not.toHaveProperty('clientEventId');
  });

  it('accepts everything the convention allows with our values', () => {
    const session = {
      model: 'vendor-voicechat',
      audio: { format: { type: 'audio/pcm', rate: 24000 }, output: { voice: { id: 'aria' }, encoding: 'binary' } },
      instructions: '',
      input: [],
      delegation: { type: 'client' },
      store: false,
      triggers: [],
      client: { data_channel: {} },
    };
    expect(start(session)).toMatchObject({ type: 'start', config: { outputEncoding: 'binary', voice: 'aria' } });
  });

  it('makes a transcription session from the streaming model, with no voice', () => {
    expect(start({ model: 'vendor-asr-streaming' })).toMatchObject({ config: { type: 'transcription', voice: null } });
  });

  it.each([
    [undefined, 'missing_parameter', 'session'],
    [[], 'missing_parameter', 'session'],
    [{}, 'missing_parameter', 'session.model'],
    [{ model: 'gpt-live-1' }, 'invalid_parameter', 'session.model'],
    [{ model: 3 }, 'invalid_parameter', 'session.model'],
    [{ model: 'vendor-voicechat', voice: 'aria' }, 'unknown_parameter', 'session.voice'],
    [{ model: 'vendor-voicechat', audio: 'pcm' }, 'invalid_parameter', 'session.audio'],
    [{ model: 'vendor-voicechat', audio: { input: {} } }, 'unknown_parameter', 'session.audio.input'],
    [
      { model: 'vendor-voicechat', audio: { format: { type: 'audio/pcm', rate: 16000 } } },
      'unsupported_audio_format',
      'session.audio.format',
    ],
    [
      { model: 'vendor-voicechat', audio: { format: { type: 'audio/pcmu', rate: 8000 } } },
      'unsupported_audio_format',
      'session.audio.format',
    ],
    [{ model: 'vendor-voicechat', audio: { format: 'pcm16' } }, 'unsupported_audio_format', 'session.audio.format'],
    [{ model: 'vendor-voicechat', audio: { output: 'aria' } }, 'invalid_parameter', 'session.audio.output'],
    [{ model: 'vendor-voicechat', audio: { output: { speed: 1 } } }, 'unknown_parameter', 'session.audio.output.speed'],
    [
      { model: 'vendor-voicechat', audio: { output: { voice: 'marin' } } },
      'invalid_voice',
      'session.audio.output.voice',
    ],
    [
      { model: 'vendor-voicechat', audio: { output: { voice: { id: 'cedar' } } } },
      'invalid_voice',
      'session.audio.output.voice',
    ],
    [{ model: 'vendor-voicechat', audio: { output: { voice: 7 } } }, 'invalid_voice', 'session.audio.output.voice'],
    [
      { model: 'vendor-voicechat', audio: { output: { encoding: 'opus' } } },
      'invalid_parameter',
      'session.audio.output.encoding',
    ],
    [{ model: 'vendor-voicechat', instructions: 'be brief' }, 'unsupported_parameter', 'session.instructions'],
    [{ model: 'vendor-voicechat', input: [{ role: 'user', content: [] }] }, 'unsupported_parameter', 'session.input'],
    [
      { model: 'vendor-voicechat', delegation: { type: 'responses', responses: {} } },
      'unsupported_parameter',
      'session.delegation',
    ],
    [{ model: 'vendor-voicechat', triggers: [{ type: 'decisions' }] }, 'unsupported_parameter', 'session.triggers'],
    [{ model: 'vendor-voicechat', store: true }, 'unsupported_parameter', 'session.store'],
  ])('refuses %j with %s on %s', (session, code, param) => {
    expect(start(session)).toEqual({ type: 'reject', code, message: expect.any(String), param, clientEventId: 'c1' });
  });

  describe('with a client secret', () => {
    it('runs the secret configuration when the start leaves it out or repeats it', () => {
      expect(start({}, LOCK)).toEqual({ type: 'start', clientEventId: 'c1', config: LOCK });
      expect(
        start({ model: 'vendor-voicechat', audio: { output: { voice: 'aria', encoding: 'binary' } } }, LOCK),
      ).toEqual({
        type: 'start',
        clientEventId: 'c1',
        config: LOCK,
      });
    });

    it.each([
      [{ model: 'vendor-asr-streaming' }, 'session.model'],
      [{ audio: { output: { encoding: 'base64' } } }, 'session.audio.output.encoding'],
    ])('refuses %j with session_config_locked', (session, param) => {
      expect(start(session, LOCK)).toMatchObject({ type: 'reject', code: 'session_config_locked', param });
    });
  });
});

describe('checkLiveUpdate', () => {
  it('acknowledges no-op updates', () => {
    expect(checkLiveUpdate(undefined, undefined)).toEqual({ type: 'update' });
    expect(checkLiveUpdate({ delegation: { type: 'client' }, triggers: [] }, 'u')).toEqual({
      type: 'update',
      clientEventId: 'u',
    });
    expect(checkLiveUpdate({ delegation: null }, undefined)).toEqual({ type: 'update' });
  });

  it.each([
    ['x', 'invalid_parameter', 'session'],
    [{ instructions: 'x' }, 'immutable_parameter', 'session.instructions'],
    [{ audio: {} }, 'immutable_parameter', 'session.audio'],
    [{ model: 'vendor-voicechat' }, 'immutable_parameter', 'session.model'],
    [{ voice: 'aria' }, 'unknown_parameter', 'session.voice'],
    [{ delegation: { type: 'decisions' } }, 'unsupported_parameter', 'session.delegation'],
    [{ triggers: [{}] }, 'unsupported_parameter', 'session.triggers'],
  ])('refuses %j with %s', (session, code, param) => {
    expect(checkLiveUpdate(session, 'u')).toMatchObject({ type: 'reject', code, param, clientEventId: 'u' });
  });
});

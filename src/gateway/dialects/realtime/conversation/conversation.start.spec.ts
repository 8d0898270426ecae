import { coreConfigOf } from '../../../connection/session-config.mapping';
import { conversationConfig } from './conversation.start';
import { servedConfig, startingView } from './conversation.start';

/** A realtime client secret's stored audio: its turn detection as client-secrets.service keeps it. */
const stored = (turns: Record<string, unknown>) => ({
  input: {
    format: { type: 'audio/pcm', rate: 24000 },
    transcription: { language: 'auto' },
    turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, ...turns },
    noise_reduction: null,
  },
  output: { voice: 'aria', encoding: 'base64' as const },
});

describe('a conversation session as it starts', () => {
  it("takes a client secret's interrupt_response and idle_timeout_ms into its configuration and session.created", () => {
    const config = coreConfigOf(
      'live',
      'vendor-voicechat',
      stored({ interrupt_response: false, idle_timeout_ms: 8000 }),
    );
    expect(config).toMatchObject({ interruptResponse: false, idleTimeoutMs: 8000 });
    expect(startingView(servedConfig(config, true)).turnDetection).toMatchObject({
      type: 'server_vad',
      idle_timeout_ms: 8000,
      interrupt_response: false,
    });
  });

  it("takes a client secret's create_response: false, which a self-answering engine starts without", () => {
    const config = coreConfigOf('live', 'vendor-voicechat', stored({ create_response: false }));
    expect(config).toMatchObject({ createResponse: false });
    expect(startingView(servedConfig(config, true)).turnDetection).toMatchObject({ create_response: false });
    expect(startingView(servedConfig(config, false)).turnDetection).toMatchObject({ create_response: true });
  });

  it('keeps the defaults when nothing asks otherwise (and other sessions never carry the fields)', () => {
    const config = coreConfigOf(
      'live',
      'vendor-voicechat',
      stored({ interrupt_response: true, idle_timeout_ms: null }),
    );
    expect(config).not.toHaveProperty('interruptResponse');
    expect(config).not.toHaveProperty('idleTimeoutMs');
    expect(config).not.toHaveProperty('createResponse');
    expect(startingView(conversationConfig('vendor-voicechat')).turnDetection).toMatchObject({
      idle_timeout_ms: null,
      interrupt_response: true,
    });
  });

  it('starts without them on an engine that answers by itself, and shows that', () => {
    const config = coreConfigOf(
      'live',
      'vendor-voicechat',
      stored({ interrupt_response: false, idle_timeout_ms: 8000 }),
    );
    const served = servedConfig(config, false);
    expect(served).not.toHaveProperty('interruptResponse');
    expect(served).not.toHaveProperty('idleTimeoutMs');
    expect(startingView(served).turnDetection).toMatchObject({ idle_timeout_ms: null, interrupt_response: true });
  });
});

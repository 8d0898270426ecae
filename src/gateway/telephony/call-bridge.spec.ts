import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { CallBridge, type OpenCall } from './call-bridge';
import type { SessionSocket } from './session-socket';
import { TWILIO_PROTOCOL } from './twilio/twilio.protocol';

/** The carrier's socket as the bridge uses it: what it was sent, and Twilio's messages to it. */
class FakeCarrier extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: { event: string; [key: string]: any }[] = [];
  send(frame: string): void {
    this.sent.push(JSON.parse(frame));
  }
  close(): void {
    this.readyState = 3;
  }
  twilio(message: object): void {
    this.emit('message', Buffer.from(JSON.stringify(message)), false);
  }
  marks(): string[] {
    return this.sent.filter((m) => m.event === 'mark').map((m) => m.mark.name as string);
  }
}

const SID = 'MZ00000000000000000000000000000001';
/** `ms` of mu-law (8 bytes a ms) as a Realtime audio delta. */
const delta = (ms: number) => Buffer.alloc(ms * 8, 0xff).toString('base64');

describe('CallBridge: barge-in truncates at what the caller heard', () => {
  let carrier: FakeCarrier;
  let session: SessionSocket;
  let clientEvents: { type: string; [key: string]: any }[];

  beforeEach(async () => {
    carrier = new FakeCarrier();
    clientEvents = [];
    const open: OpenCall = async (_token, socket) => {
      session = socket;
      socket.on('message', (frame: string) => clientEvents.push(JSON.parse(frame)));
      return { sessionId: 'sess_1', callId: 'rtc_1', conversation: true, keypress: () => undefined };
    };
    new CallBridge(carrier as unknown as WebSocket, TWILIO_PROTOCOL, open, {
      log: () => undefined,
      warn: () => undefined,
    });
    carrier.twilio({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    carrier.twilio({
      event: 'start',
      streamSid: SID,
      start: {
        streamSid: SID,
        callSid: 'CA1',
        customParameters: { token: 'ek_test' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
  });

  const server = (event: object) => session.send(JSON.stringify(event));
  const echo = (name: string) => carrier.twilio({ event: 'mark', streamSid: SID, mark: { name } });
  const truncations = () => clientEvents.filter((e) => e.type === 'conversation.item.truncate');

  it('counts the next sentence from the item’s start when the caller had heard the first one whole', () => {
    server({ type: 'response.output_audio.delta', item_id: 'item_a', delta: delta(1000) });
    echo(carrier.marks()[0]); // the first sentence played out before the second was voiced
    server({ type: 'response.output_audio.delta', item_id: 'item_a', delta: delta(500) });
    server({ type: 'response.output_audio.delta', item_id: 'item_a', delta: delta(500) });
    expect(carrier.marks()).toEqual(['item_a:1000', 'item_a:1500', 'item_a:2000']);
    echo('item_a:1500');

    server({ type: 'input_audio_buffer.speech_started' });
    expect(carrier.sent.at(-1)).toEqual({ event: 'clear', streamSid: SID });
    expect(truncations()).toEqual([
      { type: 'conversation.item.truncate', item_id: 'item_a', content_index: 0, audio_end_ms: 1500 },
    ]);
    // What the session still sends of the cut item is dropped.
    const before = carrier.sent.length;
    server({ type: 'response.output_audio.delta', item_id: 'item_a', delta: delta(200) });
    expect(carrier.sent.length).toBe(before);
  });

  it('truncates an answer still being voiced even when the caller has heard all that was sent', () => {
    server({ type: 'response.output_audio.delta', item_id: 'item_b', delta: delta(800) });
    echo('item_b:800');
    server({ type: 'input_audio_buffer.speech_started' });
    expect(truncations()).toMatchObject([{ item_id: 'item_b', audio_end_ms: 800 }]);
  });

  it('leaves an answer sent and heard whole alone', () => {
    server({ type: 'response.output_audio.delta', item_id: 'item_c', delta: delta(800) });
    server({ type: 'response.output_audio.done', item_id: 'item_c' });
    echo('item_c:800');
    server({ type: 'input_audio_buffer.speech_started' });
    expect(truncations()).toEqual([]);
    expect(carrier.sent.some((m) => m.event === 'clear')).toBe(false);
  });
});

import { ListenAudioInput } from '../shared/deepgram-audio';
import { parseListenFrame } from './listen.protocol';
import { Resampler } from '../../../../platform/audio/resampler';

function sine(rate: number, ms: number, hz: number): Buffer {
  const samples = Math.round((rate * ms) / 1000);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  return pcm;
}

function rms(pcm: Buffer, from = 0): number {
  let sum = 0;
  const n = pcm.length >> 1;
  for (let i = from; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / Math.max(1, n - from));
}

describe('parseListenFrame', () => {
  it('reads binary frames as audio and the three control messages as text', () => {
    expect(parseListenFrame(Buffer.from([1, 2, 3]), true)).toEqual({ kind: 'audio', bytes: Buffer.from([1, 2, 3]) });
    expect(parseListenFrame('{"type":"KeepAlive"}', false)).toEqual({ kind: 'keep_alive' });
    expect(parseListenFrame(Buffer.from('{"type":"Finalize","channel":0}'), false)).toEqual({ kind: 'finalize' });
    expect(parseListenFrame('{"type":"CloseStream"}', false)).toEqual({ kind: 'close_stream' });
  });

  it('forgives a control message sent as binary and reads a 0-byte frame as CloseStream', () => {
    expect(parseListenFrame(Buffer.from('{"type":"KeepAlive"}'), true)).toEqual({ kind: 'keep_alive' });
    expect(parseListenFrame(Buffer.alloc(0), true)).toEqual({ kind: 'close_stream' });
    // Audio that happens to start like JSON is still audio.
    expect(parseListenFrame(Buffer.from('{"type":"Nope"}'), true).kind).toBe('audio');
  });

  it.each(['AAAA', '{"type":"Configure"}', '[]', 'null', '{"type":"toString"}'])(
    'cannot decode the text %s',
    (text) => {
      expect(parseListenFrame(text, false)).toMatchObject({ kind: 'invalid', reason: expect.any(String) });
    },
  );
});

describe('ListenAudioInput', () => {
  it('passes 24 kHz through without a copy, carries an odd byte, and counts and hashes what it got', () => {
    const input = new ListenAudioInput(24000);
    const frame = Buffer.alloc(3840, 1);
    expect(input.push(frame)).toBe(frame);
    expect(input.push(Buffer.from([1, 2, 3]))).toEqual(Buffer.from([1, 2]));
    expect(input.push(Buffer.from([4]))).toEqual(Buffer.from([3, 4]));
    expect(input.push(Buffer.from([5]))).toEqual(Buffer.alloc(0));
    expect(input.receivedMs).toBeCloseTo(((3840 + 4) / 2 / 24000) * 1000, 6); // whole samples
    expect(input.receivedSeconds).toBe(0.08);
    expect(input.sha256()).toMatch(/^[0-9a-f]{64}$/);
    expect(input.sha256()).toBe(input.sha256());
  });

  it('resamples other rates to 24 kHz, keeping the duration', () => {
    const input = new ListenAudioInput(16000);
    let out = 0;
    for (let i = 0; i < 10; i++) out += input.push(Buffer.alloc(2560)).length;
    expect(out / 2).toBeGreaterThanOrEqual(19_190);
    expect(out / 2).toBeLessThanOrEqual(19_200);
    expect(input.receivedMs).toBe(800);
  });

  it('decodes G.711 at 8 kHz to 24 kHz: its duration is a byte a sample', () => {
    const input = new ListenAudioInput(8000, 'mulaw');
    let out = 0;
    for (let i = 0; i < 10; i++) out += input.push(Buffer.alloc(160, 0xff)).length;
    expect(out / 2).toBeGreaterThanOrEqual(4790);
    expect(out / 2).toBeLessThanOrEqual(4800);
    expect(input.receivedMs).toBe(200);
    expect(input.receivedSeconds).toBe(0.2);
  });
});

describe('Resampler (pcm16)', () => {
  it.each([8000, 16000, 22050, 32000, 44100, 48000])('keeps a 440 Hz tone from %i Hz at its level', (rate) => {
    const resampler = new Resampler(rate, 24000);
    const source = sine(rate, 500, 440);
    // In uneven blocks, as frames arrive.
    const parts: Buffer[] = [];
    for (let at = 0; at < source.length; at += 2 * 331)
      parts.push(resampler.processPcm16(source.subarray(at, at + 2 * 331)));
    const out = Buffer.concat(parts);
    expect(Math.abs(out.length / 2 - 12000)).toBeLessThanOrEqual(1);
    expect(rms(out, 100) / rms(source)).toBeGreaterThan(0.97);
    expect(rms(out, 100) / rms(source)).toBeLessThan(1.03);
  });

  it.each([
    [48000, 15000],
    [44100, 16000],
    [32000, 14000],
  ])('removes what 24 kHz cannot carry when going down from %i Hz (a %i Hz tone does not alias)', (rate, hz) => {
    const out = new Resampler(rate, 24000).processPcm16(sine(rate, 200, hz));
    expect(rms(out, 100) / 5657).toBeLessThan(0.03); // below -30 dB
  });
});

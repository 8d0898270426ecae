import { describe, expect, it } from '@jest/globals';
import { OpusEncoder } from '../../../libs/opus';
import { FakeClock } from '../../session-core/testing/fake-clock';
import { InboundAudio, OutboundAudio } from './call-audio';
import { mulawDecode, mulawEncode, readRtp, type RtpPacket } from './rtp';

const opus = { name: 'opus', payloadType: 111 } as const;
const tone = (samples: number, offset: number): Int16Array =>
  Int16Array.from({ length: samples }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 300 * (i + offset)) / 48000)),
  );
const packet = (sequence: number, payload: Buffer, payloadType = 111): RtpPacket => ({
  payloadType,
  sequence,
  timestamp: sequence * 960,
  ssrc: 1,
  payload,
});

describe('InboundAudio', () => {
  const encoded = (() => {
    const encoder = new OpusEncoder();
    return Array.from({ length: 12 }, (_, f) => encoder.encode(tone(960, f * 960)));
  })();

  it('decodes 20 ms Opus packets to 24 kHz session audio, 480 samples each', () => {
    const out: Buffer[] = [];
    const inbound = new InboundAudio(opus, (pcm) => out.push(pcm));
    for (let s = 0; s < 5; s++) inbound.packet(packet(s, encoded[s]));
    expect(out.reduce((n, b) => n + b.length, 0)).toBeGreaterThan(4 * 960); // the resampler holds a few samples back
    expect(inbound.lost).toBe(0);
  });

  it('puts a reordered packet back in its place, drops a duplicate or late one, and conceals a lost one after 60 ms', () => {
    let bytes = 0;
    const inbound = new InboundAudio(opus, (pcm) => (bytes += pcm.length));
    inbound.packet(packet(0, encoded[0]));
    inbound.packet(packet(2, encoded[2]));
    inbound.packet(packet(1, encoded[1])); // late, but within the wait: played in order
    inbound.packet(packet(1, encoded[1])); // duplicate
    expect(inbound.late).toBe(1);
    expect(inbound.lost).toBe(0);
    // 3 is lost: 4, 5, 6 wait for it, then it is concealed (FEC from 4) and they play.
    for (const s of [4, 5, 6]) inbound.packet(packet(s, encoded[s]));
    expect(inbound.lost).toBe(1);
    const before = bytes;
    inbound.packet(packet(7, encoded[7]));
    expect(bytes - before).toBe(960);
  });

  it('ignores payload types it did not negotiate, and survives a corrupt packet as a lost one', () => {
    let calls = 0;
    const inbound = new InboundAudio(opus, () => calls++);
    inbound.packet(packet(0, encoded[0], 96));
    expect(calls).toBe(0);
    inbound.packet(packet(0, Buffer.from([0xff, 0xff, 0xff])));
    inbound.packet(packet(1, encoded[1]));
    expect(calls).toBeGreaterThan(0);
  });

  it('takes PCMU at 8 kHz', () => {
    let bytes = 0;
    const inbound = new InboundAudio({ name: 'pcmu' }, (pcm) => (bytes += pcm.length));
    for (let s = 0; s < 5; s++) inbound.packet(packet(s, Buffer.alloc(160, 0xff), 0));
    expect(bytes).toBeGreaterThan(4 * 960);
  });
});

describe('OutboundAudio', () => {
  function outbound() {
    const clock = new FakeClock();
    const sent: Buffer[] = [];
    const events: string[] = [];
    const audio = new OutboundAudio(opus, 77, (p) => sent.push(p), clock, {
      started: () => events.push('started'),
      stopped: () => events.push('stopped'),
    });
    return { clock, sent, events, audio };
  }
  const speech = (ms: number) => Buffer.from(tone((ms * 24000) / 1000, 0).buffer);

  it('sends one packet per 20 ms of wall clock, timestamps 960 apart, the first marked; started, then stopped once played', () => {
    const { clock, sent, events, audio } = outbound();
    audio.play(speech(100));
    expect(events).toEqual(['started']);
    expect(sent).toHaveLength(1);
    clock.advance(50);
    expect(sent).toHaveLength(3);
    clock.advance(200);
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(sent.length).toBeLessThanOrEqual(6);
    const rtp = sent.map((p) => readRtp(p)!);
    expect(rtp.map((p) => (p.timestamp - rtp[0].timestamp) / 960)).toEqual(rtp.map((_, i) => i));
    expect(rtp.map((p) => (p.sequence - rtp[0].sequence) & 0xffff)).toEqual(rtp.map((_, i) => i));
    expect(sent[0][1] & 0x80).toBe(0x80);
    expect(sent[1][1] & 0x80).toBe(0);
    expect(rtp.every((p) => p.ssrc === 77 && p.payloadType === 111)).toBe(true);
    expect(events).toEqual(['started', 'stopped']);
  });

  it('clear() drops the queue at once: nothing more is sent, and no stopped (the caller says cleared)', () => {
    const { clock, sent, events, audio } = outbound();
    audio.play(speech(2000));
    clock.advance(100);
    const before = sent.length;
    expect(audio.clear()).toBe(true);
    clock.advance(1000);
    expect(sent.length).toBe(before);
    expect(events).toEqual(['started']);
    expect(audio.clear()).toBe(false);
  });

  it('after a pause the timestamp jumps by the pause, so the client keeps its timing', () => {
    const { clock, sent, audio } = outbound();
    audio.play(speech(40));
    clock.advance(100);
    const first = readRtp(sent.at(-1)!)!.timestamp;
    clock.advance(1000);
    audio.play(speech(40));
    const resumed = readRtp(sent.at(-1)!)!;
    expect(sent.at(-1)![1] & 0x80).toBe(0x80);
    expect(resumed.timestamp - first).toBeGreaterThan(48 * 1000);
  });
});

describe('G.711 µ-law', () => {
  it('round-trips within its quantisation step', () => {
    const samples = Int16Array.from([0, 100, -100, 1000, -1000, 12000, -12000, 32767, -32768]);
    const back = mulawDecode(mulawEncode(samples));
    samples.forEach((s, i) => expect(Math.abs(back[i] - s)).toBeLessThanOrEqual(Math.max(8, Math.abs(s) / 16)));
    expect(mulawEncode(Int16Array.from([0]))[0]).toBe(0xff); // µ-law silence
  });
});

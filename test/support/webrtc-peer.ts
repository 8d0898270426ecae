/**
 * A WebRTC client peer in Node, as a browser running the Agents SDK is one: an audio track (Opus,
 * PCMU as the fallback) and the `oai-events` data channel, offered without trickle. It speaks pcm16
 * 24 kHz audio as 20 ms Opus packets and records what it hears, decoded.
 */
import { Audio, PeerConnection, type DataChannel, type Track } from 'node-datachannel';
import { OpusDecoder, OpusEncoder } from '../../libs/opus';
import { isRtcp, mulawDecode, readRtp, writeRtp } from '../../src/gateway/webrtc/rtp';
import { Resampler } from '../../src/platform/audio/resampler';
import { rmsLevel } from '../../src/engines/embedded/testing/speech-fixtures';
import type { ConversationEvent } from './conversation-app';
import { waitFor } from './wait-for';

export interface ClientPeer {
  readonly offer: string;
  readonly events: ConversationEvent[];
  /** Answer audio heard: one entry per RTP packet, decoded at 48 kHz, with when it arrived. */
  readonly heard: { at: number; pcm: Int16Array; marker: boolean }[];
  connect(answer: string): Promise<void>;
  send(event: Record<string, unknown>): void;
  sendRaw(text: string): void;
  /** Speaks pcm16 24 kHz mono in real time (20 ms packets), then silence while `silenceMs`. */
  speak(pcm24k: Buffer, silenceMs?: number): Promise<void>;
  next(type: string, from?: number, timeoutMs?: number): Promise<ConversationEvent>;
  close(): void;
  readonly channel: DataChannel;
  readonly pc: PeerConnection;
}

export async function clientPeer(options: { codecs?: 'opus+pcmu' | 'pcmu' } = {}): Promise<ClientPeer> {
  const pc = new PeerConnection('client', { iceServers: [] });
  const events: ConversationEvent[] = [];
  const heard: ClientPeer['heard'] = [];
  const onlyPcmu = options.codecs === 'pcmu';
  const decoder = new OpusDecoder();
  const gathered = new Promise<void>((resolve) =>
    pc.onGatheringStateChange((state) => state === 'complete' && resolve()),
  );
  const media = new Audio('0', 'SendRecv');
  if (!onlyPcmu) media.addOpusCodec(111);
  media.addAudioCodec(0, 'PCMU/8000');
  media.addSSRC(4242, 'client', 'client', 'mic');
  const track: Track = pc.addTrack(media);
  track.onMessage((packet) => {
    if (isRtcp(packet)) return;
    const rtp = readRtp(packet);
    if (rtp === null) return;
    const marker = (packet[1] & 0x80) !== 0;
    if (rtp.payloadType === 111) heard.push({ at: Date.now(), pcm: decoder.decode(Buffer.from(rtp.payload)), marker });
    else if (rtp.payloadType === 0) heard.push({ at: Date.now(), pcm: mulawDecode(Buffer.from(rtp.payload)), marker });
  });
  const channel = pc.createDataChannel('oai-events');
  channel.onMessage((message) => events.push(JSON.parse(String(message)) as ConversationEvent));
  // createDataChannel starts the negotiation itself (libdatachannel's auto-negotiation): no setLocalDescription here.
  await gathered;
  // Offered without its candidates: the service learns the client's address from the client's own
  // checks (a peer-reflexive candidate), which start once the client has the answer. With candidates
  // the service's checks and DTLS hello can reach libdatachannel, this client, before it has stored the
  // answer's fingerprint, and it fails the setup ("Got a remote candidate without ICE transport"). A
  // browser waits for the fingerprint; the browser suites offer their candidates.
  const offer = pc
    .localDescription()!
    .sdp.split('\r\n')
    .filter((line) => !line.startsWith('a=candidate:'))
    .join('\r\n');
  const encoder = new OpusEncoder();
  let sequence = 1;
  let timestamp = 0;
  const speakPacket = (pcm48k: Int16Array): void => {
    if (!track.isOpen()) return;
    const payload = onlyPcmu ? Buffer.alloc(160, 0xff) : encoder.encode(pcm48k);
    track.sendMessageBinary(
      writeRtp(
        { payloadType: onlyPcmu ? 0 : 111, sequence: sequence++, timestamp, ssrc: 4242, marker: false },
        payload,
      ),
    );
    timestamp += onlyPcmu ? 160 : 960;
  };
  return {
    offer,
    events,
    heard,
    channel,
    pc,
    async connect(answer) {
      pc.setRemoteDescription(answer, 'answer');
      await waitFor(async () => channel.isOpen(), 15_000);
    },
    send: (event) => channel.sendMessage(JSON.stringify(event)),
    sendRaw: (text) => channel.sendMessage(text),
    async speak(pcm24k, silenceMs = 0) {
      const resampler = new Resampler(24000, 48000);
      const up = resampler.processPcm16(Buffer.concat([pcm24k, Buffer.alloc((silenceMs * 48) | 0)]));
      const samples = new Int16Array(up.buffer.slice(up.byteOffset, up.byteOffset + up.length));
      const startedAt = Date.now();
      for (let f = 0; (f + 1) * 960 <= samples.length; f++) {
        speakPacket(samples.subarray(f * 960, (f + 1) * 960));
        const due = startedAt + (f + 1) * 20 - Date.now();
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      }
    },
    async next(type, from = 0, timeoutMs = 15_000) {
      let found: ConversationEvent | undefined;
      await waitFor(async () => (found = events.slice(from).find((e) => e.type === type)) !== undefined, timeoutMs);
      return found!;
    },
    close: () => pc.close(),
  };
}

/**
 * A call placed and its peer connected: `place` posts the offer and gives back the service's answer
 * (with whatever else the test keeps of the response). Should libdatachannel, this client, still fail
 * its setup while taking the answer ("Got a remote candidate without ICE transport": see the offer
 * above), that setup alone is tried again, three attempts at most.
 */
export async function connectedPeer<T extends { answer: string }>(
  place: (offer: string) => Promise<T>,
  keep: ClientPeer[],
  options: Parameters<typeof clientPeer>[0] = {},
): Promise<T & { p: ClientPeer }> {
  for (let attempt = 1; ; attempt++) {
    const p = await clientPeer(options);
    keep.push(p);
    const placed = await place(p.offer);
    try {
      await p.connect(placed.answer);
      return { ...placed, p };
    } catch (error) {
      p.close();
      if (attempt === 3 || !String(error).includes('without ICE transport')) throw error;
    }
  }
}

/** The RMS level of what a peer heard (its `heard` packets, or some of them). */
export function heardLevel(frames: readonly { pcm: Int16Array }[]): number {
  const all = new Int16Array(frames.reduce((n, f) => n + f.pcm.length, 0));
  let at = 0;
  for (const { pcm } of frames) {
    all.set(pcm, at);
    at += pcm.length;
  }
  return rmsLevel(all);
}

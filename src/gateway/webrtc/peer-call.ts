/**
 * One call's peer connection (libdatachannel through node-datachannel): it answers the offer with
 * host candidates on the instance's one UDP port (ICE UDP mux: every call shares it, told apart by
 * ICE credentials), and hands on the `oai-events` channel, the audio packets and the peer's end.
 */
import { randomInt } from 'node:crypto';
import { Audio, PeerConnection, type DataChannel, type Track } from 'node-datachannel';
import { AppError } from '../../platform/errors/app-error';
import type { CallCodec } from './call-audio';
import type { CheckedOffer } from './sdp-offer';

export interface PeerCallOptions {
  readonly callId: string;
  readonly offer: CheckedOffer;
  readonly udpPort: number;
  /** Addresses the answer announces instead of the interfaces' own (empty: the interfaces'). */
  readonly announced: readonly string[];
  /** Largest message the data channel takes (the answer's a=max-message-size). */
  readonly maxMessageBytes: number;
}

export interface PeerCallEvents {
  channel(channel: DataChannel): void;
  packet(packet: Buffer): void;
  /** `closed`: the peer ended the call; `lost`: it stopped answering (ICE failed or disconnected for long). */
  ended(how: 'closed' | 'lost'): void;
}

/** How long ICE may stay `disconnected` before the call counts as lost (the Agents SDK's own 5 s). */
const DISCONNECTED_GRACE_MS = 5000;
const GATHERING_TIMEOUT_MS = 5000;

export class PeerCall {
  readonly codec: CallCodec;
  /** Below 2^31: libdatachannel reads a=ssrc as a signed 32-bit number, and a peer on it mismatched larger ones. */
  readonly ssrc = randomInt(1, 0x7fffffff);
  private readonly pc: PeerConnection;
  private readonly track: Track;
  private events: PeerCallEvents | null = null;
  private ended = false;
  private graceTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: PeerCallOptions) {
    const { offer } = options;
    this.codec = offer.audio.opus !== null ? { name: 'opus', payloadType: offer.audio.opus } : { name: 'pcmu' };
    this.pc = new PeerConnection(options.callId, {
      iceServers: [],
      enableIceUdpMux: true,
      portRangeBegin: options.udpPort,
      portRangeEnd: options.udpPort,
      maxMessageSize: options.maxMessageBytes,
    });
    const audio = new Audio(offer.audio.mid, 'SendRecv');
    if (this.codec.name === 'opus') audio.addOpusCodec(this.codec.payloadType);
    else audio.addAudioCodec(0, 'PCMU/8000');
    audio.addSSRC(this.ssrc, 'continuum', 'continuum', 'answer');
    this.track = this.pc.addTrack(audio);
  }

  /** Sets the offer and resolves with the answer, its candidates gathered (no trickle). */
  async answer(events: PeerCallEvents): Promise<string> {
    this.events = events;
    this.pc.onDataChannel((channel) => events.channel(channel));
    this.track.onMessage((packet) => events.packet(packet));
    this.pc.onStateChange((state) => this.stateChanged(state));
    let timer: NodeJS.Timeout | undefined;
    const gathered = new Promise<void>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new AppError('internal_error', 'The call could not gather its ICE candidates')),
        GATHERING_TIMEOUT_MS,
      );
      this.pc.onGatheringStateChange((state) => state === 'complete' && resolve());
    });
    try {
      this.pc.setRemoteDescription(this.options.offer.sdp, 'offer');
    } catch (error) {
      throw new AppError(
        'invalid_parameter',
        `The SDP offer was refused: ${String((error as Error).message ?? error)}`,
        {
          param: 'sdp',
        },
      );
    }
    try {
      if (this.pc.gatheringState() !== 'complete') await gathered;
    } finally {
      clearTimeout(timer);
    }
    const answer = this.pc.localDescription()?.sdp;
    if (answer === undefined) throw new Error('no local description after gathering');
    return announce(answer, this.options.announced, this.options.udpPort);
  }

  sendAudio(packet: Buffer): void {
    if (this.track.isOpen()) this.track.sendMessageBinary(packet);
  }

  close(): void {
    this.ended = true;
    if (this.graceTimer !== null) clearTimeout(this.graceTimer);
    this.pc.close();
  }

  private stateChanged(state: string): void {
    if (this.ended) return;
    if (this.graceTimer !== null) clearTimeout(this.graceTimer);
    this.graceTimer = null;
    if (state === 'failed') return this.end('lost');
    if (state === 'closed') return this.end('closed');
    if (state === 'disconnected') this.graceTimer = setTimeout(() => this.end('lost'), DISCONNECTED_GRACE_MS);
  }

  private end(how: 'closed' | 'lost'): void {
    if (this.ended) return;
    this.ended = true;
    this.events?.ended(how);
  }
}

/** The answer with its host candidates replaced by the configured addresses on the call port. */
export function announce(sdp: string, addresses: readonly string[], port: number): string {
  if (addresses.length === 0) return sdp;
  const lines = sdp.split('\r\n');
  const out: string[] = [];
  let replaced = false;
  for (const line of lines) {
    if (!line.startsWith('a=candidate:')) {
      if (line === 'a=end-of-candidates' && !replaced) {
        out.push(...candidates(addresses, port));
        replaced = true;
      }
      out.push(line);
      continue;
    }
    if (replaced) continue;
    replaced = true;
    out.push(...candidates(addresses, port));
  }
  if (!replaced && !out.includes('a=end-of-candidates')) {
    // No candidate was gathered (no interface to announce): the configured ones go after the last media line's attributes.
    const end = out[out.length - 1] === '' ? out.length - 1 : out.length;
    out.splice(end, 0, ...candidates(addresses, port));
  }
  return out.join('\r\n');
}

function candidates(addresses: readonly string[], port: number): string[] {
  return addresses.map((address, i) => `a=candidate:${i + 1} 1 UDP ${2130706431 - i} ${address} ${port} typ host`);
}

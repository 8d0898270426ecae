/** RTP (RFC 3550) as a call needs it: the fixed header read and written, and G.711 µ-law. */

export interface RtpPacket {
  readonly payloadType: number;
  readonly sequence: number;
  readonly timestamp: number;
  readonly ssrc: number;
  readonly payload: Buffer;
}

/** RTCP shares the port (rtcp-mux): packet types 200–204 (SR, RR, SDES, BYE, APP) and feedback 205–206. */
export function isRtcp(packet: Buffer): boolean {
  return packet.length >= 2 && packet[1] >= 192 && packet[1] <= 223;
}

/** null for what is not an RTP packet of version 2 with its header, CSRCs, extension and padding in bounds. */
export function readRtp(packet: Buffer): RtpPacket | null {
  if (packet.length < 12 || packet[0] >> 6 !== 2) return null;
  let offset = 12 + (packet[0] & 0x0f) * 4;
  if (packet[0] & 0x10) {
    if (packet.length < offset + 4) return null;
    offset += 4 + packet.readUInt16BE(offset + 2) * 4;
  }
  let end = packet.length;
  if (packet[0] & 0x20) end -= packet[packet.length - 1];
  if (offset > end) return null;
  return {
    payloadType: packet[1] & 0x7f,
    sequence: packet.readUInt16BE(2),
    timestamp: packet.readUInt32BE(4),
    ssrc: packet.readUInt32BE(8),
    payload: packet.subarray(offset, end),
  };
}

export function writeRtp(
  header: { payloadType: number; sequence: number; timestamp: number; ssrc: number; marker: boolean },
  payload: Buffer,
): Buffer {
  const packet = Buffer.allocUnsafe(12 + payload.length);
  packet[0] = 0x80;
  packet[1] = (header.marker ? 0x80 : 0) | header.payloadType;
  packet.writeUInt16BE(header.sequence & 0xffff, 2);
  packet.writeUInt32BE(header.timestamp >>> 0, 4);
  packet.writeUInt32BE(header.ssrc >>> 0, 8);
  payload.copy(packet, 12);
  return packet;
}

/** ITU-T G.711 µ-law, sample by sample. */
export function mulawDecode(payload: Buffer): Int16Array {
  const out = new Int16Array(payload.length);
  for (let i = 0; i < payload.length; i++) {
    const u = ~payload[i] & 0xff;
    const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4)) - 0x84;
    out[i] = u & 0x80 ? -magnitude : magnitude;
  }
  return out;
}

export function mulawEncode(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) {
    let s = samples[i];
    const sign = s < 0 ? 0x80 : 0;
    if (s < 0) s = -s;
    s = Math.min(s, 32635) + 0x84;
    let exponent = 7;
    for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
    out[i] = ~(sign | (exponent << 4) | ((s >> (exponent + 3)) & 0x0f)) & 0xff;
  }
  return out;
}

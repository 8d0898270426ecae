/**
 * Twilio Media Streams, bidirectional (`<Connect><Stream>`): JSON text frames only. In: connected,
 * start, media, dtmf, mark, stop. Out: media (under the stream's sid), mark, clear. The fields are
 * Twilio's (../shared/reference/calls-and-phones.md); SignalWire and Fonoster speak the same.
 */
import type { CarrierEvent, CarrierProtocol } from '../carrier-protocol';

type Fields = Record<string, unknown>;
const isRecord = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** Base64 of at most 1 s of mu-law; Twilio sends 160 bytes (20 ms) a frame. */
const BASE64 = /^[A-Za-z0-9+/]{0,10664}={0,2}$/;

export const TWILIO_PROTOCOL: CarrierProtocol = {
  name: 'twilio',
  parse(frame: string): CarrierEvent {
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch {
      return { kind: 'invalid', reason: 'invalid_json' };
    }
    if (!isRecord(message) || typeof message.event !== 'string') return { kind: 'invalid', reason: 'invalid_event' };
    switch (message.event) {
      case 'connected':
        return { kind: 'connected' };
      case 'start': {
        const start = message.start;
        if (!isRecord(start) || typeof start.streamSid !== 'string')
          return { kind: 'invalid', reason: 'invalid_start' };
        const params = isRecord(start.customParameters) ? start.customParameters : {};
        const format = isRecord(start.mediaFormat) ? start.mediaFormat : {};
        return {
          kind: 'start',
          streamId: start.streamSid,
          callId: typeof start.callSid === 'string' ? start.callSid : '',
          token: typeof params.token === 'string' ? params.token : null,
          encoding: typeof format.encoding === 'string' ? format.encoding : 'audio/x-mulaw',
          sampleRate: typeof format.sampleRate === 'number' ? format.sampleRate : 8000,
        };
      }
      case 'media': {
        const media = message.media;
        const payload = isRecord(media) ? media.payload : undefined;
        if (typeof payload !== 'string' || payload.length % 4 !== 0 || !BASE64.test(payload)) {
          return { kind: 'invalid', reason: 'invalid_audio' };
        }
        // Only the caller's track is the caller (an outbound track echoes what was played).
        if (isRecord(media) && media.track !== undefined && media.track !== 'inbound') return { kind: 'connected' };
        return { kind: 'media', payload };
      }
      case 'dtmf': {
        const digit = isRecord(message.dtmf) ? message.dtmf.digit : undefined;
        if (typeof digit !== 'string' || !/^[0-9*#A-D]$/.test(digit))
          return { kind: 'invalid', reason: 'invalid_dtmf' };
        return { kind: 'dtmf', digit };
      }
      case 'mark': {
        const name = isRecord(message.mark) ? message.mark.name : undefined;
        return typeof name === 'string' ? { kind: 'mark', name } : { kind: 'invalid', reason: 'invalid_mark' };
      }
      case 'stop':
        return { kind: 'stop' };
      default:
        return { kind: 'invalid', reason: 'unknown_event' };
    }
  },
  media: (streamSid, payload) =>
    `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":"${payload}"}}`,
  mark: (streamSid, name) => JSON.stringify({ event: 'mark', streamSid, mark: { name } }),
  clear: (streamSid) => JSON.stringify({ event: 'clear', streamSid }),
};

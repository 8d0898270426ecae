/**
 * A client's SDP offer, checked before any peer connection exists: hostile or broken offers are
 * refused here with a 400 that says what is wrong, and never reach libdatachannel.
 */
import { AppError } from '../../platform/errors/app-error';

/** Browsers' offers are 3–8 KB; this leaves room for many interfaces' candidates and nothing more. */
export const MAX_SDP_BYTES = 32 * 1024;
/** A browser gathers a few per interface; an offer with more is not one a browser made. */
export const MAX_OFFER_CANDIDATES = 64;

export interface CheckedOffer {
  readonly sdp: string;
  /** The audio m-line's mid, and the payload types the call will send with. */
  readonly audio: { readonly mid: string; readonly opus: number | null; readonly pcmu: boolean };
}

const refuse = (message: string): AppError => new AppError('invalid_parameter', message, { param: 'sdp' });

export function checkOffer(sdp: string): CheckedOffer {
  if (Buffer.byteLength(sdp) > MAX_SDP_BYTES) {
    throw new AppError('payload_too_large', `The SDP offer is larger than ${MAX_SDP_BYTES} bytes`, { param: 'sdp' });
  }
  const lines = sdp.split(/\r?\n/).filter((line) => line !== '');
  if (lines[0] !== 'v=0') throw refuse('The body is not an SDP offer (it must start with v=0)');
  if (lines.some((line) => !/^[a-z]=/.test(line))) throw refuse('The SDP offer has a line that is not type=value');
  const candidates = lines.filter((line) => line.startsWith('a=candidate:')).length;
  if (candidates > MAX_OFFER_CANDIDATES) {
    throw refuse(`The SDP offer carries ${candidates} ICE candidates; at most ${MAX_OFFER_CANDIDATES} are taken`);
  }
  if (!lines.some((line) => /^a=fingerprint:sha-(256|384|512) [0-9A-Fa-f:]+$/.test(line))) {
    throw refuse('The SDP offer has no DTLS fingerprint (a=fingerprint:sha-256 …): WebRTC media must be encrypted');
  }
  if (!lines.some((line) => line.startsWith('a=ice-ufrag:')) || !lines.some((line) => line.startsWith('a=ice-pwd:'))) {
    throw refuse('The SDP offer has no ICE credentials (a=ice-ufrag, a=ice-pwd)');
  }
  const sections = mediaSections(lines);
  if (!sections.some((s) => s.kind === 'application' && /DTLS\/SCTP/.test(s.line))) {
    throw refuse(
      'The SDP offer has no data channel (m=application … UDP/DTLS/SCTP): create the oai-events channel before the offer',
    );
  }
  const audio = sections.find((s) => s.kind === 'audio');
  if (audio === undefined)
    throw refuse('The SDP offer has no audio (m=audio): add a microphone track before the offer');
  const mid = audio.attributes.find((a) => a.startsWith('mid:'))?.slice(4);
  if (mid === undefined || !/^[A-Za-z0-9_-]{1,32}$/.test(mid)) throw refuse('The audio m-line has no valid a=mid');
  const rtpmap = (codec: RegExp): number | null => {
    const line = audio.attributes.find((a) => /^rtpmap:\d+ /.test(a) && codec.test(a.split(' ')[1]));
    return line === undefined ? null : Number(line.slice(7, line.indexOf(' ')));
  };
  const opus = rtpmap(/^opus\/48000(\/2)?$/i);
  // PCMU has the static payload type 0, with or without an rtpmap line.
  const pcmu = rtpmap(/^PCMU\/8000$/i) === 0 || audio.line.split(' ').slice(3).includes('0');
  if (opus === null && !pcmu) throw refuse('The audio m-line offers neither opus/48000/2 nor PCMU/8000');
  return { sdp, audio: { mid, opus, pcmu } };
}

interface MediaSection {
  readonly kind: string;
  readonly line: string;
  readonly attributes: string[];
}

function mediaSections(lines: readonly string[]): MediaSection[] {
  const sections: MediaSection[] = [];
  for (const line of lines) {
    if (line.startsWith('m=')) sections.push({ kind: line.slice(2).split(' ')[0], line, attributes: [] });
    else if (line.startsWith('a=') && sections.length > 0) sections[sections.length - 1].attributes.push(line.slice(2));
  }
  return sections;
}

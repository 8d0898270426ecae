import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../platform/errors/app-error';
import { announce } from './peer-call';
import { checkOffer, MAX_OFFER_CANDIDATES } from './sdp-offer';
import { readCallForm } from './multipart-offer';

/** A browser's offer, shortened: audio with Opus and PCMU, then the data channel, bundled. */
const OFFER = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 0',
  'c=IN IP4 0.0.0.0',
  'a=ice-ufrag:abcd',
  'a=ice-pwd:abcdefghijklmnopqrstuvwx',
  'a=fingerprint:sha-256 AA:BB:CC:DD',
  'a=setup:actpass',
  'a=mid:0',
  'a=sendrecv',
  'a=rtpmap:111 opus/48000/2',
  'a=rtpmap:0 PCMU/8000',
  'a=candidate:1 1 udp 2113937151 192.168.1.2 50000 typ host',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'a=mid:1',
  'a=sctp-port:5000',
  '',
].join('\r\n');

const refusal = (sdp: string): AppError => {
  try {
    checkOffer(sdp);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('not refused');
};

describe('checkOffer', () => {
  it("reads a browser's offer: the audio mid and Opus's payload type", () => {
    expect(checkOffer(OFFER).audio).toEqual({ mid: '0', opus: 111, pcmu: true });
  });

  it('takes a PCMU-only offer', () => {
    const pcmu = OFFER.replace('m=audio 9 UDP/TLS/RTP/SAVPF 111 0', 'm=audio 9 UDP/TLS/RTP/SAVPF 0').replace(
      'a=rtpmap:111 opus/48000/2\r\n',
      '',
    );
    expect(checkOffer(pcmu).audio).toEqual({ mid: '0', opus: null, pcmu: true });
  });

  it.each([
    ['not SDP', 'hello', /not an SDP offer/],
    ['no fingerprint', OFFER.replace(/a=fingerprint[^\r]+\r\n/, ''), /DTLS fingerprint/],
    ['no ICE credentials', OFFER.replace(/a=ice-pwd[^\r]+\r\n/, ''), /ICE credentials/],
    ['no data channel', OFFER.split('m=application')[0], /no data channel/],
    ['no audio', OFFER.replace('m=audio', 'm=video'), /no audio/],
    [
      'no codec served',
      OFFER.replace(/111 opus\/48000\/2/, '111 G722/8000')
        .replace(' 111 0', ' 111')
        .replace('a=rtpmap:0 PCMU/8000\r\n', ''),
      /neither opus/,
    ],
    ['a line that is not type=value', OFFER.replace('s=-', 's=-\r\nthis is not sdp'), /not type=value/],
  ])('refuses %s with a 400 naming the sdp', (_name, sdp, message) => {
    const error = refusal(sdp);
    expect(error.code).toBe('invalid_parameter');
    expect(error.param).toBe('sdp');
    expect(error.message).toMatch(message);
  });

  it('refuses more candidates than a browser makes, and an offer past the size limit (413)', () => {
    const many = Array.from(
      { length: MAX_OFFER_CANDIDATES + 1 },
      (_, i) => `a=candidate:${i} 1 udp 1 10.0.0.${i % 250} 9 typ host`,
    );
    expect(refusal(OFFER.replace('a=mid:0', ['a=mid:0', ...many].join('\r\n'))).message).toMatch(/ICE candidates/);
    expect(refusal(OFFER + 'a=x:' + 'y'.repeat(40_000)).code).toBe('payload_too_large');
  });
});

describe('announce', () => {
  const answer =
    'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=candidate:1 1 UDP 1 10.1.2.3 3479 typ host\r\na=candidate:2 1 UDP 1 172.17.0.2 3479 typ host\r\na=end-of-candidates\r\n';

  it("replaces the interfaces' candidates with the configured addresses on the call port", () => {
    const out = announce(answer, ['203.0.113.7', '2001:db8::7'], 3479);
    expect(out.match(/a=candidate:[^\r]+/g)).toEqual([
      'a=candidate:1 1 UDP 2130706431 203.0.113.7 3479 typ host',
      'a=candidate:2 1 UDP 2130706430 2001:db8::7 3479 typ host',
    ]);
  });

  it('leaves the answer alone with none configured', () => {
    expect(announce(answer, [], 3479)).toBe(answer);
  });
});

describe('readCallForm', () => {
  const form = (parts: string[], boundary = 'XyZ') =>
    Buffer.from(parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('') + `--${boundary}--\r\n`);

  it("reads the openai SDK's sdp and session parts", () => {
    const body = form([
      'Content-Disposition: form-data; name="sdp"\r\nContent-Type: application/sdp\r\n\r\nv=0\r\ns=-',
      'Content-Disposition: form-data; name="session"\r\nContent-Type: application/json\r\n\r\n{"type":"realtime","instructions":"Hi"}',
    ]);
    expect(readCallForm(body, 'multipart/form-data; boundary=XyZ')).toEqual({
      sdp: 'v=0\r\ns=-',
      session: { type: 'realtime', instructions: 'Hi' },
    });
  });

  it('refuses a form without sdp, a session that is not a JSON object, a part given twice', () => {
    const sdp = 'Content-Disposition: form-data; name="sdp"\r\n\r\nv=0';
    expect(() => readCallForm(form([]), 'multipart/form-data; boundary=XyZ')).toThrow(/no sdp part/);
    expect(() =>
      readCallForm(
        form([sdp, 'Content-Disposition: form-data; name="session"\r\n\r\n[1]']),
        'multipart/form-data; boundary=XyZ',
      ),
    ).toThrow(/JSON object/);
    expect(() => readCallForm(form([sdp, sdp]), 'multipart/form-data; boundary=XyZ')).toThrow(/twice/);
    expect(() => readCallForm(form([sdp]), 'multipart/form-data')).toThrow(/boundary/);
  });
});

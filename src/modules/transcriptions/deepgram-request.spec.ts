import { parseListenQuery } from './deepgram-request';

describe('parseListenQuery (prerecorded)', () => {
  it("reads LiveKit's Deepgram recognize() query", () => {
    expect(
      parseListenQuery({
        model: 'nova-3',
        punctuate: 'true',
        detect_language: 'false',
        smart_format: 'false',
        profanity_filter: 'false',
        numerals: 'false',
        mip_opt_out: 'false',
        language: 'en-US',
      }),
    ).toEqual({ model: 'nova-3', language: 'en-US', punctuate: true, utterances: false, rawPcm: null });
  });

  it('takes headerless linear16 with its rate and channels, and multi as any language', () => {
    expect(
      parseListenQuery({ encoding: 'linear16', sample_rate: '16000', channels: '2', language: 'multi' }),
    ).toMatchObject({
      rawPcm: { sampleRate: 16000, channels: 2 },
      language: null,
    });
  });

  it.each([
    [{ callback: 'https://example.com/hook' }, 'callback'],
    [{ encoding: 'mulaw', sample_rate: '8000' }, 'encoding'],
    [{ encoding: 'linear16' }, 'sample_rate'],
    [{ punctuate: 'yes' }, 'punctuate'],
    [{ language: 'english!' }, 'language'],
    [{ model: ['a', 'b'] }, 'model'],
  ] as Array<[Record<string, unknown>, string]>)('refuses %j naming %s', (query, param) => {
    expect(() => parseListenQuery(query)).toThrow(expect.objectContaining({ code: 'invalid_parameter', param }));
  });
});

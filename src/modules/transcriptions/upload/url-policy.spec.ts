import { addressAllowed, fetchAudioUrl } from './url-fetcher';

describe('addressAllowed', () => {
  it.each(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])('lets %s through', (address) => {
    expect(addressAllowed(address, false)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '::1',
    'fc00::1',
    '0.0.0.0',
    '::ffff:127.0.0.1',
    '224.0.0.1',
  ])('refuses %s unless private addresses are allowed', (address) => {
    expect(addressAllowed(address, false)).toBe(false);
  });

  it('allows private addresses when the operator says so, never link-local ones', () => {
    expect(addressAllowed('127.0.0.1', true)).toBe(true);
    expect(addressAllowed('10.0.0.5', true)).toBe(true);
    expect(addressAllowed('169.254.169.254', true)).toBe(false);
    expect(addressAllowed('fe80::1', true)).toBe(false);
    expect(addressAllowed('::ffff:169.254.169.254', true)).toBe(false);
  });
});

describe('fetchAudioUrl refuses before any connection', () => {
  const limits = {
    urlHosts: ['media.example.com'],
    urlAllowPrivate: false,
    urlTimeoutMs: 1000,
    maxAudioSeconds: 60,
    queueSize: 1,
    queueTimeoutMs: 1000,
    maxStreams: 2,
  };
  const refusal = (message: RegExp) =>
    expect.objectContaining({ code: 'invalid_parameter', param: 'url', message: expect.stringMatching(message) });

  it.each([
    [{ ...limits, urlHosts: [] }, 'https://media.example.com/a.wav', /does not fetch audio from URLs/],
    [limits, 'ftp://media.example.com/a.wav', /http or https/],
    [limits, 'https://user:pw@media.example.com/a.wav', /credentials/],
    [limits, 'https://other.example.com/a.wav', /not one this service fetches/],
    [limits, 'not a url', /not a valid URL/],
    [limits, 42, /must be a string/],
    [{ ...limits, urlHosts: ['*'] }, 'http://127.0.0.1:9/a.wav', /private or link-local/],
    [{ ...limits, urlHosts: ['*'] }, 'http://[::1]:9/a.wav', /private or link-local/],
    [{ ...limits, urlHosts: ['*'], urlAllowPrivate: true }, 'http://169.254.169.254/latest', /private or link-local/],
  ] as Array<[typeof limits, unknown, RegExp]>)('%#: %j', async (policy, url, message) => {
    await expect(fetchAudioUrl(url, policy, '/nonexistent', 1000)).rejects.toEqual(refusal(message));
  });
});

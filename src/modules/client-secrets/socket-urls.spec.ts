import { socketBaseUrl, socketUrls, SocketUrlSettings } from './socket-urls';

describe('socket URLs', () => {
  const plain: SocketUrlSettings = { publicUrl: null, tls: false, fallbackHost: 'localhost:8080' };

  it('uses PUBLIC_URL when set, https → wss, keeping a path prefix and ignoring the request', () => {
    const settings = { ...plain, publicUrl: 'https://speech.example.com/api' };
    expect(socketBaseUrl({ host: 'evil.test', forwardedProto: 'http' }, settings)).toBe('wss://speech.example.com/api');
    expect(socketBaseUrl({}, { ...plain, publicUrl: 'http://10.0.0.1:9000' })).toBe('ws://10.0.0.1:9000');
  });

  it.each([
    [{ host: 'api.test:8443', forwardedProto: 'https' }, false, 'wss://api.test:8443'],
    [{ host: 'api.test', forwardedProto: 'HTTPS, http' }, false, 'wss://api.test'],
    [{ host: 'api.test', forwardedProto: 'http' }, true, 'ws://api.test'],
    [{ host: 'api.test' }, true, 'wss://api.test'],
    [{ host: 'api.test' }, false, 'ws://api.test'],
    [{ host: '[::1]:8080' }, false, 'ws://[::1]:8080'],
    [{ host: '127.0.0.1:1234', forwardedProto: 'gopher' }, false, 'ws://127.0.0.1:1234'],
  ])('builds from Host and X-Forwarded-Proto: %j (tls %s) → %s', (origin, tls, expected) => {
    expect(socketBaseUrl(origin, { ...plain, tls })).toBe(expected);
  });

  it.each([[undefined], [''], ['evil.test/path'], ['a b'], ['user@host'], ['host:port:1'], ['x'.repeat(400)]])(
    'falls back to the configured host for Host %j',
    (host) => {
      expect(socketBaseUrl({ host }, plain)).toBe('ws://localhost:8080');
    },
  );

  it('names the live, realtime and listen sockets', () => {
    expect(socketUrls({ host: 'h.test', forwardedProto: 'https' }, plain)).toEqual({
      live: 'wss://h.test/v1/live/sessions',
      realtime: 'wss://h.test/v1/realtime?intent=transcription',
      listen: 'wss://h.test/v1/listen',
      listenV2: 'wss://h.test/v2/listen',
    });
  });
});

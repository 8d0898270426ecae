import type { IncomingMessage } from 'node:http';
import { ConfigError } from './environment';
import { clientAddress, parseTrustProxy } from './trusted-proxies';

const request = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('TRUST_PROXY', () => {
  it('trusts nobody by default: the peer is the client, X-Forwarded-For ignored', () => {
    for (const value of [undefined, '', ' ', '0'])
      expect(clientAddress(request('10.0.0.5', '203.0.113.7'), parseTrustProxy(value))).toBe('10.0.0.5');
  });

  it('with addresses and CIDRs, takes the address the nearest untrusted hop forwarded', () => {
    const trust = parseTrustProxy('10.42.0.0/16, 127.0.0.1');
    expect(clientAddress(request('10.42.3.4', '198.51.100.1, 203.0.113.7'), trust)).toBe('203.0.113.7');
    expect(clientAddress(request('10.42.3.4', '198.51.100.1, 10.42.9.9'), trust)).toBe('198.51.100.1');
    expect(clientAddress(request('192.0.2.1', '203.0.113.7'), trust)).toBe('192.0.2.1');
  });

  it('with a hop count, trusts that many hops nearest the service', () => {
    expect(clientAddress(request('10.0.0.1', '1.1.1.1, 2.2.2.2'), parseTrustProxy('1'))).toBe('2.2.2.2');
    expect(clientAddress(request('10.0.0.1', '1.1.1.1, 2.2.2.2'), parseTrustProxy('2'))).toBe('1.1.1.1');
  });

  it('accepts proxy-addr names', () => {
    expect(clientAddress(request('::1', '203.0.113.7'), parseTrustProxy('loopback'))).toBe('203.0.113.7');
  });

  it.each(['true', 'not-an-address', '10.0.0.0/99', '10.0.0.1,,10.0.0.2'])('refuses %s', (value) => {
    expect(() => parseTrustProxy(value)).toThrow(ConfigError);
  });
});

import { addressAllowed } from './url-fetcher';

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

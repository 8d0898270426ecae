import proxyAddr from '@fastify/proxy-addr';
import type { IncomingMessage } from 'node:http';
import { ConfigError } from './environment';

/** Fastify's trustProxy function: may the hop `i` away from the socket, at `address`, name the client? */
export type TrustProxy = (address: string, hop: number) => boolean;

/** Trust nobody: the client is the socket's peer, and X-Forwarded-For is ignored. */
export const TRUST_NONE: TrustProxy = () => false;

/**
 * TRUST_PROXY as Fastify reads trustProxy: a hop count (`1`: the peer is a proxy, the address it
 * forwarded is the client), or a comma-separated list of addresses, CIDRs and proxy-addr's names
 * (`loopback`, `linklocal`, `uniquelocal`). Unset or `0`: trust none. `true` (trust every hop) is
 * refused: it would let any client name its own address and escape the failed-authentication throttle.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text === '0') return TRUST_NONE;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return (_address, hop) => hop < hops;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  try {
    if (entries.some((entry) => entry === '' || entry === 'true')) throw new Error('empty or `true` entry');
    return proxyAddr.compile(entries);
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration:\n  TRUST_PROXY=${JSON.stringify(text)}: must be a hop count or a comma-separated ` +
        `list of addresses, CIDRs, loopback, linklocal or uniquelocal (${(error as Error).message})`,
    );
  }
}

/** The client's address as REST sees it (Fastify's request.ip), for requests Fastify never wraps: socket upgrades. */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string | undefined {
  if (!req.socket.remoteAddress) return undefined;
  return proxyAddr(req, trust);
}

import type { FastifyHelmetOptions } from '@fastify/helmet';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One year: what browsers and the HSTS preload list expect of a site that means it. */
const HSTS_MAX_AGE_SECONDS = 365 * 24 * 3600;

/**
 * The security headers every answer carries (@fastify/helmet, on every route, JSON included: a browser
 * may render any of them). The CSP fits the two pages the service serves:
 * - /docs (Swagger UI): its own scripts and stylesheet, an inline <style> and style attributes (React),
 *   data: images in its stylesheet, and /v1/openapi.json fetched from the same origin;
 * - /playground/: its ES modules and AudioWorklet from the same origin, one inline import map (allowed
 *   by its hash, not by 'unsafe-inline'), fetches and WebSockets to the same origin ('self' covers ws:
 *   and wss: of it in CSP 3) or to PUBLIC_URL, where live_url points.
 * Nothing may frame a page (frame-ancestors 'none', X-Frame-Options DENY): the playground holds an API
 * key. HSTS only when the service terminates TLS itself; behind a proxy, the proxy owns it.
 */
export function securityHeaders(options: {
  tls: boolean;
  publicUrl: string | null;
  inlineScriptHashes: string[];
}): FastifyHelmetOptions {
  const connect = ["'self'", ...publicOrigins(options.publicUrl)];
  return {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        scriptSrc: ["'self'", ...options.inlineScriptHashes.map((hash) => `'${hash}'`)],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: connect,
        objectSrc: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(options.tls ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: options.tls ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: false } : false,
  };
}

/** The origins PUBLIC_URL names, for the sockets and calls a page makes to it when it is not the page's own. */
function publicOrigins(publicUrl: string | null): string[] {
  if (!publicUrl) return [];
  const url = new URL(publicUrl);
  const socket = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return [url.origin, `${socket}//${url.host}`];
}

/** CSP hashes of the inline scripts of `page` (the playground's import map), as script-src sources. */
export function inlineScriptHashes(dir: string | null, page = 'index.html'): string[] {
  if (!dir) return [];
  const html = readFileSync(join(dir, page), 'utf8');
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    ([, body]) => `sha256-${createHash('sha256').update(body).digest('base64')}`,
  );
}

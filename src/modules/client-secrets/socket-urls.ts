/**
 * Absolute socket addresses for a client secret's response, built from PUBLIC_URL when it is set,
 * else from the request's Host and X-Forwarded-Proto (a TLS-serving instance defaults to wss).
 */

/** What the request says about where it was sent. */
export interface RequestOrigin {
  host?: string;
  forwardedProto?: string;
}

export interface SocketUrlSettings {
  publicUrl: string | null;
  tls: boolean;
  /** Used when the request carries no usable Host header. */
  fallbackHost: string;
}

export interface SocketUrls {
  live: string;
  realtime: string;
  listen: string;
  listenV2: string;
}

export const LIVE_PATH = '/v1/live/sessions';
export const REALTIME_PATH = '/v1/realtime?intent=transcription';
export const LISTEN_PATH = '/v1/listen';
export const LISTEN_V2_PATH = '/v2/listen';

/** A hostname, IPv4 or bracketed IPv6 address, with an optional port: nothing that could bend a URL. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function socketBaseUrl(origin: RequestOrigin, settings: SocketUrlSettings): string {
  if (settings.publicUrl) {
    const url = new URL(settings.publicUrl);
    const scheme = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  }
  const host = origin.host && origin.host.length <= 300 && HOST.test(origin.host) ? origin.host : settings.fallbackHost;
  return `${schemeFor(origin.forwardedProto, settings.tls)}//${host}`;
}

export function socketUrls(origin: RequestOrigin, settings: SocketUrlSettings): SocketUrls {
  const base = socketBaseUrl(origin, settings);
  return {
    live: base + LIVE_PATH,
    realtime: base + REALTIME_PATH,
    listen: base + LISTEN_PATH,
    listenV2: base + LISTEN_V2_PATH,
  };
}

/** A proxy chain lists protocols client-first: the first one is what the client used. */
function schemeFor(forwardedProto: string | undefined, tls: boolean): 'wss:' | 'ws:' {
  const first = forwardedProto?.split(',')[0].trim().toLowerCase();
  if (first === 'https' || first === 'wss') return 'wss:';
  if (first === 'http' || first === 'ws') return 'ws:';
  return tls ? 'wss:' : 'ws:';
}

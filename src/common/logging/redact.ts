const SECRET_PARAM = /^(token|key|api[-_]?key|access[-_]?token|secret)$/i;
const SECRET_VALUE = /^(wk|ek)_/;

/** A URL fit for a log line: credential-bearing query values are replaced, the rest kept for debugging. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const [name, value] of [...params]) {
    if (SECRET_PARAM.test(name) || SECRET_VALUE.test(value.trim())) params.set(name, '[REDACTED]');
  }
  return `${url.slice(0, q)}?${params.toString()}`;
}

/** Header paths pino removes from any logged request. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["sec-websocket-protocol"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["sec-websocket-protocol"]',
];

// Credentials can reach a log line from anywhere a client can put text: a query parameter's name or
// value (alone, after a prefix, inside another value), a path segment, a header, a body, a socket URL,
// or an error message that quotes any of these. Rather than chase every field, every line is scrubbed
// as text on its way out (scrubbingDestination), on top of the structured redactions below that keep
// the rest of a line readable.

/** A key or a client secret anywhere in a text, also with its `_` percent-encoded. */
const CREDENTIAL = /(?:wk|ek)(?:_|%5[Ff])[0-9A-Za-z]+/g;
/** A SHA-256 in hex, as the database keeps keys and secrets: never useful in a log, always a risk. */
const HEX_DIGEST = /(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])/g;
const SECRET_PARAM = /^(token|key|api[-_]?key|access[-_]?token|secret|password|authorization)$/i;

export const REDACTED = '[REDACTED]';

/** `text` with every credential and SHA-256 digest replaced. */
export function redactText(text: string): string {
  return text.replace(CREDENTIAL, REDACTED).replace(HEX_DIGEST, REDACTED);
}

/** A URL fit for a log line: the values of credential-named parameters are replaced, the rest scrubbed. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  if (q < 0) return redactText(url);
  const kept = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
      } catch {
        name = pair.slice(0, eq);
      }
      return SECRET_PARAM.test(name.trim()) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    });
  return redactText(`${url.slice(0, q)}?${kept.join('&')}`);
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

interface WritableLike {
  write(chunk: string): unknown;
}

/** Wraps a pino destination so that no line leaves it with a credential or a digest in it. */
export function scrubbingDestination<T extends WritableLike>(destination: T): WritableLike {
  return {
    write: (chunk: string) => destination.write(redactText(chunk)),
  };
}

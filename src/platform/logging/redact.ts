// Credentials can reach a log line from anywhere a client can put text: a query parameter's name or
// value (alone, after a prefix, inside another value), a path segment, a header, a body, a socket URL,
// or an error message that quotes any of these. Rather than chase every field, every line is scrubbed
// as text on its way out (scrubbingDestination), on top of the structured redactions below that keep
// the rest of a line readable.

/** `\u00`, with its backslash as written, or as the JSON of a log line escapes it. */
const JSON_ESCAPE = '\\\\{1,2}u00';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A character as a client may write it: itself, percent-encoded (once or twice, any case), or a JSON \u escape. */
function anyEncodingOf(char: string): string {
  const hex = char.charCodeAt(0).toString(16).padStart(2, '0');
  const either = `[${hex[0].toUpperCase()}${hex[0].toLowerCase()}][${hex[1].toUpperCase()}${hex[1].toLowerCase()}]`;
  return `(?:${escapeRegExp(char)}|%(?:25)?${either}|${JSON_ESCAPE}${either})`;
}
/** A letter or digit of a credential's body, in any of those encodings. */
const BODY_CHAR = `(?:[0-9A-Za-z]|%(?:25)?[0-9A-Fa-f]{2}|${JSON_ESCAPE}[0-9A-Fa-f]{2})`;
/** What the service issues and accepts: API keys, client secrets and admin tokens. */
const PREFIXES = ['wk_', 'ek_', 'wadm_'];
const prefixPattern = (encoded: boolean) =>
  PREFIXES.map((prefix) => (encoded ? [...prefix].map(anyEncodingOf).join('') : prefix)).join('|');

/** A credential anywhere in a text, any of its characters encoded. */
const CREDENTIAL = new RegExp(`(?:${prefixPattern(true)})${BODY_CHAR}+`, 'g');
/** A credential in a text decoded from base64 (at least 8 characters after the prefix: not a chance match). */
const DECODED_CREDENTIAL = new RegExp(`(?:${prefixPattern(false)})[0-9A-Za-z]{8}`);
/**
 * A run that may be base64 or base64url text long enough to carry a credential (`wk_` and 8 characters),
 * taken whole (a run starts where the alphabet does: no rescanning from inside one).
 */
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{15,}={0,2}/g;
/** A SHA-256 in hex, as the database keeps keys and secrets: never useful in a log, always a risk. */
const HEX_DIGEST = /(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])/g;
const SECRET_PARAM = /^(token|key|api[-_]?key|access[-_]?token|secret|password|authorization)$/i;

export const REDACTED = '[REDACTED]';

/**
 * Secrets the service holds that have no prefix to find them by (the database password, upstream
 * credentials): registered by value when read, then removed from every line in any encoding.
 */
const knownValues = new Set<string>();
let knownPattern: RegExp | null = null;

/** Registers a secret the service read (config, a mounted file) so that no line ever carries it. */
export function registerSecretValue(value: string | null | undefined): void {
  // Shorter values would match ordinary words; nothing configurable as a secret is that short.
  if (!value || value.length < 6 || knownValues.has(value)) return;
  knownValues.add(value);
  const forms = [...knownValues].flatMap((known) => [
    [...known].map(anyEncodingOf).join(''),
    ...base64Forms(known).map(escapeRegExp),
  ]);
  knownPattern = new RegExp(forms.sort((a, b) => b.length - a.length).join('|'), 'g');
}

/**
 * The base64 and base64url text that `value` always encodes to, wherever it sits in what was encoded:
 * at each of the three byte alignments, the characters that depend on its bytes alone.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  return [0, 1, 2].flatMap((pad) => {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((pad * 4) / 3), Math.floor(((pad + bytes.length) * 4) / 3));
    return [core, core.replace(/\+/g, '-').replace(/\//g, '_')];
  });
}

/** What a prefix always encodes to, at each alignment: a run without any of these is not decoded. */
const ENCODED_PREFIXES = PREFIXES.flatMap(base64Forms);

/** The run with a credential in it when `run` is base64 of a text that holds one (at any alignment). */
function carriesEncodedCredential(run: string): boolean {
  if (!ENCODED_PREFIXES.some((encoded) => run.includes(encoded))) return false;
  for (let offset = 0; offset < 4; offset++) {
    const decoded = Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
    if (DECODED_CREDENTIAL.test(decoded)) return true;
  }
  return false;
}

/**
 * `text` with every credential replaced: a key, a client secret or an admin token written as it is, with
 * any characters percent-encoded (once or twice) or JSON-escaped, inside base64 or base64url text; any
 * SHA-256 digest in hex; and every registered secret value in those encodings.
 */
export function redactText(text: string): string {
  let out = text.replace(CREDENTIAL, REDACTED);
  if (knownPattern) out = out.replace(knownPattern, REDACTED);
  return out.replace(BASE64_RUN, redactRun);
}

/**
 * One run of the base64 alphabet: whole when it decodes to a credential, else with any SHA-256 in it
 * replaced (hex digits are of that alphabet, so every digest lies in one run: one pass finds both).
 */
function redactRun(run: string): string {
  if (carriesEncodedCredential(run)) return REDACTED;
  return run.length >= 64 ? run.replace(HEX_DIGEST, REDACTED) : run;
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

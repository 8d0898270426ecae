import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import { createRootLogger } from './logger';
import { redactText, redactUrl, registerSecretValue } from './redact';
import { statementName } from './safe-error';

const KEY = 'wk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg';
const SECRET = 'ek_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvut';
const ADMIN = 'wadm_Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjKkLl';
const sha = (v: string) => createHash('sha256').update(v).digest('hex');
const b64 = (v: string) => Buffer.from(v).toString('base64');
const b64url = (v: string) => Buffer.from(v).toString('base64url');
/** Every character percent-encoded, as encodeURIComponent never would. */
const allPercent = (v: string) => [...v].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');

/** The ways a client can write one credential that a log line must not carry. */
const encodings = (v: string): [string, string][] => [
  ['as it is', v],
  [
    'with one letter of its prefix percent-encoded',
    `${v[0]}%${v.charCodeAt(1).toString(16).toUpperCase()}${v.slice(2)}`,
  ],
  ['every character percent-encoded, lower-case hex', allPercent(v)],
  ['percent-encoded twice', allPercent(v).replace(/%/g, '%25')],
  ['as JSON \\u escapes', [...v].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join('')],
  ['in base64', b64(v)],
  ['in base64 after other text (another alignment)', b64(`user:${v}`)],
  ['in base64 after other text (the third alignment)', b64(`u:${v}`)],
  ['in base64url', b64url(`x${v}`)],
  ['as its SHA-256', sha(v)],
];
/** What must not survive of `v`: its body, its base64 and its digest. */
const traces = (v: string) => [v.slice(v.indexOf('_') + 1), b64(v).slice(4, -4), sha(v)];

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createRootLogger('trace', sink), text: () => lines.join('') };
}

describe('redactUrl', () => {
  it.each([
    [`/v1/models?${KEY}=1`, 'as a query parameter name'],
    [`/v1/models?q=prefix${KEY}`, 'after a prefix'],
    [`/v1/models?q=a,${SECRET},b`, 'inside another value'],
    [`/v1/live/sessions?token=${SECRET}`, 'as ?token='],
    [`/v1/sessions/${KEY}`, 'in the path'],
    [`/v1/models?q=${encodeURIComponent(KEY).replace('_', '%5F')}`, 'percent-encoded'],
    [`/v1/models?x=${sha(KEY)}`, 'as its SHA-256'],
  ])('removes a credential %s (%s)', (url) => {
    const out = redactUrl(url)!;
    expect(out).not.toContain(KEY.slice(3));
    expect(out).not.toContain(SECRET.slice(3));
    expect(out).not.toContain(sha(KEY));
  });

  it('replaces the value of a credential-named parameter whatever it is, and keeps the rest', () => {
    expect(redactUrl('/v1/listen?model=nova-3&token=anything')).toBe('/v1/listen?model=nova-3&token=[REDACTED]');
  });
});

describe('the root logger', () => {
  it('scrubs credentials and digests from every part of a line', () => {
    const { logger, text } = capture();
    logger.info({ url: `/x?${KEY}`, nested: { header: `Bearer ${SECRET}` } }, `message with ${KEY}`);
    logger.error({ err: new Error(`failed for ${SECRET} (${sha(SECRET)})`) }, 'boom');
    const out = text();
    for (const leak of [KEY, SECRET, sha(KEY), sha(SECRET), KEY.slice(3), SECRET.slice(3)])
      expect(out).not.toContain(leak);
    expect(out).toContain('[REDACTED]');
  });

  it('logs a failed query by its statement name and SQLSTATE, never its parameters or detail', () => {
    const { logger, text } = capture();
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "api_keys_key_hash"'), {
      code: '23505',
      detail: `Key (key_hash)=(${sha(KEY)}) already exists.`,
    });
    const error = new QueryFailedError(
      'SELECT * FROM continuum_take_request_token($1, $2, $3)',
      [sha(KEY), 'metadata-value-xyz', 600],
      driverError,
    );
    logger.error({ err: error }, 'unhandled error');
    const line = JSON.parse(text());
    expect(line.err).toMatchObject({
      type: 'QueryFailedError',
      code: '23505',
      statement: 'continuum_take_request_token',
    });
    expect(text()).not.toContain('metadata-value-xyz');
    expect(text()).not.toContain('key_hash)=');
    expect(text()).not.toContain('$1, $2');
  });
});

describe('a failed query', () => {
  it('keeps identifiers in the message but not the value PostgreSQL quotes at its end', () => {
    const { logger, text } = capture();
    const driverError = Object.assign(new Error('invalid input syntax for type bigint: "secret-ish 123"'), {
      code: '22P02',
    });
    logger.error({ err: new QueryFailedError('SELECT 1 FROM "sessions"', ['secret-ish 123'], driverError) }, 'x');
    const line = JSON.parse(text());
    expect(line.err.message).toBe('invalid input syntax for type bigint: "[value]"');
    expect(text()).not.toContain('secret-ish');
  });
});

describe('statementName', () => {
  it.each([
    ['SELECT * FROM continuum_admit_sessions($1::jsonb)', 'continuum_admit_sessions'],
    ['INSERT INTO "sessions"("id", "project_id") VALUES ($1, $2)', 'INSERT sessions'],
    ['UPDATE api_keys SET revoked_at = now() WHERE id = $1', 'UPDATE api_keys'],
    ['BEGIN', 'BEGIN'],
  ])('%s → %s', (sql, name) => expect(statementName(sql)).toBe(name));
});

describe('redactText', () => {
  describe.each([
    ['an API key', KEY],
    ['a client secret', SECRET],
    ['an admin token', ADMIN],
  ])('removes %s', (_kind, credential) => {
    it.each(encodings(credential))('%s', (_how, written) => {
      const out = redactText(`GET /v1/models?x=${written}&y=1 {"v":"a ${written} b"}`);
      for (const trace of traces(credential)) expect(out).not.toContain(trace);
      expect(out).not.toContain(written);
      expect(out).toContain('&y=1'); // and only it
    });
  });

  it('removes a registered secret without a prefix (a database password) in any encoding', () => {
    const password = 'pg-Pass/word+42';
    registerSecretValue(password);
    for (const written of [
      password,
      encodeURIComponent(password),
      allPercent(password),
      b64(password),
      b64(`postgres:${password}`),
      b64url(`ab${password}`),
    ]) {
      const out = redactText(`connecting with ${written} now`);
      expect(out).not.toContain('Pass');
      expect(out).not.toContain(b64(password).slice(2, -4));
    }
  });

  it('leaves ordinary text alone', () => {
    expect(redactText('session sess_abc closed after 12 frames')).toBe('session sess_abc closed after 12 frames');
  });
});

/**
 * Two clients behind one address (an office NAT, reached through a trusted proxy): the bad one's
 * failures throttle the address, the good one's valid API key and client secret still pass, and the
 * throttled address's bad credentials still cost the database nothing.
 */
import { SocketClient } from '../support/socket-client';
import { authStatements, statementsDuring } from '../support/statements';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { createSecret, databaseUrlOf } from './client-secrets-fixtures';

const LIMIT = 3;
const LISTEN = '/v1/listen?encoding=linear16&sample_rate=24000';

describe.each(databaseTargets())('good credentials behind a throttled address on %s', (target) => {
  let issuer: TestApp;
  let t: TestApp;
  let ws: string;

  beforeAll(async () => {
    const env = { AUTH_FAILURES_PER_MINUTE: String(LIMIT), TRUST_PROXY: '127.0.0.1' };
    issuer = await startTestApp(target, { env });
    // The instance the NAT's clients reach has served none of their credentials before.
    t = await startTestApp(target, { env, databaseUrl: databaseUrlOf(issuer) });
    ws = t.baseUrl.replace('http', 'ws');
  });
  afterAll(async () => {
    await t?.app.close();
    await issuer?.close();
  });

  /** The address the requests come from, behind the proxy: each test throttles its own. */
  let nat = '';
  const fromNat = () => ({ 'x-forwarded-for': nat });
  const models = (authorization: string) =>
    t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization, ...fromNat() } });
  const refusal = (path: string, headers: Record<string, string> = {}) =>
    SocketClient.refusal(`${ws}${path}`, { headers: { ...fromNat(), ...headers } });
  const opens = async (path: string, headers: Record<string, string> = {}) => {
    const client = await SocketClient.open(`${ws}${path}`, { headers: { ...fromNat(), ...headers } });
    client.ws.close(1000);
  };
  /** A secret minted by the issuer instance, for a transcription session (live_url on the listen socket). */
  const newSecret = async (apiKey: string) => {
    const res = await createSecret(issuer, apiKey, { session: { type: 'transcription' } });
    expect(res.statusCode).toBe(200);
    return res.json().value as string;
  };

  /** The bad neighbour: its failures fill the address's bucket, then it is throttled. */
  const throttle = async () => {
    const failures = await statementsDuring(async () => {
      for (let i = 0; i < LIMIT; i++) expect((await refusal(`/v1/live/sessions?token=ek_bad${i}`)).status).toBe(401);
    });
    expect((await models('Bearer wk_bad')).statusCode).toBe(429);
    return failures;
  };

  it('lets a fresh key and a fresh secret through on REST and sockets, and still answers bad ones from memory', async () => {
    nat = '203.0.113.7';
    // Each failure: the secret's lookup and the failure's record.
    expect(authStatements(await throttle()).length).toBeGreaterThanOrEqual(2 * LIMIT);

    // The good neighbour, with a key and a secret this instance has never seen.
    const { apiKey } = await issuer.newProject('good neighbour');
    const secret = await newSecret(apiKey);
    expect((await models(`Bearer ${apiKey}`)).statusCode).toBe(200);
    await opens(LISTEN, { authorization: `Bearer ${apiKey}` });
    await opens(`/v1/live/sessions?token=${secret}`);
    await opens(LISTEN, { authorization: `Token ${await newSecret(apiKey)}` });

    // The bad neighbour meanwhile: forged keys and secrets (of the signed shape too) cost nothing.
    const forgedSecret = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const forgedKey = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    const throttled = await statementsDuring(async () => {
      for (let i = 0; i < 20; i++) {
        expect((await refusal(`/v1/live/sessions?token=${forgedSecret}`)).status).toBe(429);
        expect((await refusal(LISTEN, { authorization: `Bearer ${forgedKey}` })).status).toBe(429);
        expect((await models(`Bearer wk_guess${i}`)).statusCode).toBe(429);
      }
    });
    expect(authStatements(throttled)).toEqual([]);
  });

  it('looks a spent secret up once, then refuses it from memory too', async () => {
    nat = '203.0.113.8';
    const { apiKey } = await issuer.newProject('spent');
    const secret = await newSecret(apiKey);
    await throttle();
    await opens(`/v1/live/sessions?token=${secret}`);
    const first = await statementsDuring(async () =>
      expect((await refusal(`/v1/live/sessions?token=${secret}`)).body.error.code).toBe('client_secret_used'),
    );
    expect(authStatements(first).length).toBeGreaterThan(0);
    const again = await statementsDuring(async () => {
      for (let i = 0; i < 10; i++) expect((await refusal(`/v1/live/sessions?token=${secret}`)).status).toBe(429);
    });
    expect(authStatements(again)).toEqual([]);
  });
});

import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { httpGet, NginxProxy, startNginxProxy } from '../support/nginx-proxy';

/**
 * TRUST_PROXY behind a real reverse proxy (Debian's nginx, as an Ingress controller is configured):
 * clients are told apart by the address nginx forwards, so one attacker's bad keys throttle only the
 * attacker; a forged X-Forwarded-For is ignored from an untrusted peer. Distinct clients are distinct
 * loopback source addresses.
 */
const LIMIT = 5;
const ATTACKER = '127.0.0.11';
const NEIGHBOUR = '127.0.0.12';
const DIRECT = '127.0.0.13';
const target = databaseTargets()[0];

async function behindNginx(env: Record<string, string>): Promise<{ app: TestApp; proxy: NginxProxy }> {
  const app = await startTestApp(target, {
    env: { AUTH_FAILURES_PER_MINUTE: String(LIMIT), RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', ...env },
  });
  return { app, proxy: await startNginxProxy(app.baseUrl) };
}

const badKey = (i: number) => ({ authorization: `Bearer wk_bad${i}` });
const models = async (base: string, from: string, headers: Record<string, string>) =>
  (await httpGet(`${base}/v1/models`, { localAddress: from, headers })).status;

describe('failed-authentication throttle behind nginx', () => {
  describe('TRUST_PROXY=127.0.0.1 (the proxy)', () => {
    let app: TestApp;
    let proxy: NginxProxy;
    let key: string;
    beforeAll(async () => {
      ({ app, proxy } = await behindNginx({ TRUST_PROXY: '127.0.0.1' }));
      ({ apiKey: key } = await app.newProject());
    });
    afterAll(async () => {
      await proxy?.stop();
      await app?.close();
    });

    it('throttles the attacker only, whatever X-Forwarded-For the attacker sends', async () => {
      const attacker: number[] = [];
      for (let i = 0; i <= LIMIT; i++) {
        // A fresh forged address each time: nginx appends the real one, and only that one is trusted.
        attacker.push(await models(proxy.url, ATTACKER, { ...badKey(i), 'x-forwarded-for': `198.51.100.${i}` }));
      }
      expect(attacker).toEqual([...Array(LIMIT).fill(401), 429]);

      expect(await models(proxy.url, NEIGHBOUR, badKey(99))).toBe(401);
      expect(await models(proxy.url, NEIGHBOUR, { authorization: `Bearer ${key}` })).toBe(200);
      expect(await models(proxy.url, ATTACKER, { authorization: `Bearer ${key}` })).toBe(200);

      // The logs name the client, not the proxy.
      const lines = app.logs.filter((l) => l.includes('"url":"/v1/models"') && l.includes('incoming request'));
      const ips = new Set(lines.map((l) => (JSON.parse(l) as { req: { ip: string } }).req.ip));
      expect(ips).toEqual(new Set([ATTACKER, NEIGHBOUR]));
    });

    it('socket handshakes through the proxy count against the forwarded client', async () => {
      const ws = proxy.url.replace('http', 'ws');
      const attacker = await SocketClient.refusal(`${ws}/v1/live/sessions`, {
        localAddress: ATTACKER,
        headers: { authorization: 'Bearer ek_nope' },
      });
      expect(attacker.status).toBe(429);
      const neighbour = await SocketClient.refusal(`${ws}/v1/live/sessions`, {
        localAddress: NEIGHBOUR,
        headers: { authorization: 'Bearer ek_nope' },
      });
      expect(neighbour.status).toBe(401);
    });

    it('ignores X-Forwarded-For from a peer it does not trust', async () => {
      // A client that reaches the service directly and claims to be the neighbour is judged as itself.
      const forged: number[] = [];
      for (let i = 0; i <= LIMIT; i++)
        forged.push(await models(app.baseUrl, DIRECT, { ...badKey(i), 'x-forwarded-for': NEIGHBOUR }));
      expect(forged).toEqual([...Array(LIMIT).fill(401), 429]);
      expect(await models(proxy.url, NEIGHBOUR, badKey(100))).toBe(401);
    });
  });

  describe('without TRUST_PROXY (the default)', () => {
    let app: TestApp;
    let proxy: NginxProxy;
    beforeAll(async () => ({ app, proxy } = await behindNginx({})));
    afterAll(async () => {
      await proxy?.stop();
      await app?.close();
    });

    it('sees every client as the proxy: one attacker throttles everybody behind it', async () => {
      for (let i = 0; i < LIMIT; i++) expect(await models(proxy.url, ATTACKER, badKey(i))).toBe(401);
      expect(await models(proxy.url, NEIGHBOUR, badKey(99))).toBe(429);
    });
  });
});

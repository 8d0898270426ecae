import { createHash } from 'node:crypto';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A real API key and a real client secret, put everywhere a client can put text (query names and
 * values, after a prefix, paths, headers, bodies, socket URLs and subprotocols, socket events), and a
 * database failure on a statement that carries a key hash: no log line at any level holds either
 * value, the part after its prefix, or its SHA-256.
 */
const sha = (v: string) => createHash('sha256').update(v).digest('hex');
const b64 = (v: string) => Buffer.from(v).toString('base64');
const allPercent = (v: string) => [...v].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');

/** A credential as a client may disguise it: what the service would decode, and what it never would. */
const disguises = (v: string): string[] => [
  v,
  `${v[0]}%${v.charCodeAt(1).toString(16).toUpperCase()}${v.slice(2)}`, // w%6B_…: the example
  allPercent(v),
  allPercent(v).replace(/%/g, '%25'),
  [...v].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join(''),
  b64(v),
  b64(`user:${v}`),
  Buffer.from(`x${v}`).toString('base64url'),
  sha(v),
];
/** The parts of a disguise that must not reach a line: its middle, where the credential's own characters are. */
const middle = (text: string) => text.slice(Math.floor(text.length / 4), Math.floor((text.length * 3) / 4));

describe.each(databaseTargets())('no credential in the logs on %s', (target) => {
  let t: TestApp;
  let key: string;
  let secret: string;
  let other: string;
  const admin = `wadm_${'Zq7Xw2'.repeat(7)}`;

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', LOG_LEVEL: 'trace', ADMIN_API_KEY_SHA256: sha(admin) },
    });
    ({ apiKey: key } = await t.newProject());
    const issued = await t.app.inject({
      method: 'POST',
      url: '/v1/live/client_secrets',
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    secret = issued.json().value;
    // A second secret that stays unused: it goes in every position a valid one can be refused from.
    other = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/realtime/client_secrets',
        headers: { authorization: `Bearer ${key}` },
        payload: {},
      })
    ).json().value;
  });
  afterAll(() => t?.close());

  const leaks = () => {
    const text = t.logs.join('');
    const values = [key, secret, other, admin];
    const needles = values.flatMap((v) => [
      v,
      v.slice(v.indexOf('_') + 1),
      sha(v),
      sha(v).toUpperCase(),
      ...disguises(v).map(middle),
    ]);
    return needles.filter((n) => text.includes(n));
  };

  it('keeps them out of every line, wherever the client put them', async () => {
    const routes = [
      ['GET', '/v1/models'],
      ['GET', '/v1/project'],
      ['GET', '/v1/sessions'],
      ['GET', '/v1/usage'],
      ['GET', '/v1/usage/export'],
      ['GET', '/v1/usage/normalized-meter-events'],
      ['POST', '/v1/live/client_secrets'],
      ['POST', '/v1/realtime/client_secrets'],
      ['GET', '/healthz'],
      ['GET', '/nowhere'],
    ] as const;
    for (const v of [key, secret, other]) {
      const queries = [`?${v}=1`, `?q=prefix${v}`, `?q=a,${v},b`, `?token=${v}`, `?api_key=${v}`, `?${v}`];
      const paths = [`/v1/sessions/${v}`, `/v1/sessions/sess_${v}`, `/v1/${v}`];
      const headerSets = [
        { authorization: `Bearer ${v}` },
        { 'x-api-key': v },
        { authorization: `Basic ${v}` },
        { 'x-custom': `pre${v}`, cookie: `s=${v}`, 'x-request-id': v.slice(0, 40) },
      ];
      const bodies = [
        { metadata: { k: v } },
        { metadata: { [v.slice(0, 60)]: 'x' } },
        { session: { model: v } },
        { session: { type: v, audio: { output: { voice: v } } } },
        { [v]: 1 },
      ];
      for (const [method, url] of routes) {
        for (const query of queries) {
          await t.app.inject({ method, url: url + query, headers: { authorization: `Bearer ${key}` } });
        }
        for (const headers of headerSets) await t.app.inject({ method, url, headers });
        if (method === 'POST') {
          for (const payload of bodies) {
            await t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, payload });
          }
          await t.app.inject({
            method,
            url,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            payload: `{"metadata": {"k": "${v}"`,
          });
        }
      }
      for (const path of paths) {
        await t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
        await t.app.inject({ method: 'DELETE', url: path, headers: { authorization: `Bearer ${key}` } });
      }
    }

    const ws = t.baseUrl.replace('http', 'ws');
    // The real secret opens a live session; then events carrying the values.
    const live = await SocketClient.open(`${ws}/v1/live/sessions?token=${encodeURIComponent(secret)}`);
    live.send({ type: 'session.start', session: { model: 'vendor-voicechat' } });
    await live.waitFor('session.started');
    live.send({ type: key, event_id: secret });
    live.send({ type: 'session.update', session: { model: other, audio: { output: { voice: key } } } });
    live.sendRaw(`not json ${key}`);
    await live.waitFor((e) => e.type === 'error');
    live.send({ type: 'session.close' });
    await live.waitClosed();
    // The realtime secret on its own socket, with events that carry the key.
    const rt = await SocketClient.open(`${ws}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${other}` },
    });
    rt.send({ type: 'transcription_session.update', session: { input_audio_transcription: { model: key } } });
    rt.send({ type: `x${secret}` });
    await rt.waitFor((e) => e.type === 'error');
    rt.ws.close(1000);
    await rt.waitClosed();

    for (const v of [key, secret, other]) {
      const urls = [
        `${ws}/v1/live/sessions?token=${v}`,
        `${ws}/v1/live/sessions?${v}=1`,
        `${ws}/v1/live/sessions/${v}`,
        `${ws}/v1/realtime?intent=transcription&token=${v}`,
        `${ws}/v1/listen?encoding=linear16&sample_rate=24000&token=${v}`,
      ];
      for (const url of urls) await SocketClient.refusal(url).catch(() => undefined);
      await SocketClient.refusal(`${ws}/v1/realtime?intent=transcription`, {
        protocols: ['realtime', `openai-insecure-api-key.${v}`],
      }).catch(() => undefined);
      await SocketClient.refusal(`${ws}/v1/listen?encoding=linear16&sample_rate=24000`, {
        protocols: ['token', v],
      }).catch(() => undefined);
    }
    expect(t.logs.length).toBeGreaterThan(100);
    expect(leaks()).toEqual([]);
  });

  it('keeps every disguise of them out too, the admin token included, wherever the client put it', async () => {
    const before = t.logs.length;
    const ws = t.baseUrl.replace('http', 'ws');
    for (const v of [key, secret, other, admin]) {
      for (const d of disguises(v)) {
        const requests = [
          { method: 'GET', url: `/v1/models?x=${d}` },
          { method: 'GET', url: `/v1/models?${d}=1` },
          { method: 'GET', url: `/v1/sessions/${d}` },
          { method: 'GET', url: '/v1/admin/projects', headers: { authorization: `Bearer ${d}` } },
          { method: 'GET', url: '/v1/models', headers: { 'x-api-key': d, 'x-custom': d, 'x-request-id': d } },
          { method: 'POST', url: '/v1/live/client_secrets', payload: { metadata: { k: d } } },
          {
            method: 'POST',
            url: '/v1/live/client_secrets',
            headers: { 'content-type': 'application/json' },
            payload: `{"metadata": {"k": "${d}"`,
          },
        ] as const;
        for (const request of requests) {
          const headers = { authorization: `Bearer ${key}`, ...('headers' in request ? request.headers : {}) };
          await t.app.inject({ ...request, headers });
        }
        const sockets: [string, string[] | undefined][] = [
          [`${ws}/v1/live/sessions?token=${d}`, undefined],
          [`${ws}/v1/live/sessions?x=${d}`, undefined],
          [`${ws}/v1/realtime?intent=transcription`, ['realtime', `openai-insecure-api-key.${d}`]],
          [`${ws}/v1/listen?encoding=linear16&sample_rate=24000`, ['token', d]],
        ];
        // A disguise a client library will not send (a subprotocol with '=' in it) is skipped by it.
        for (const [url, protocols] of sockets) await SocketClient.refusal(url, { protocols }).catch(() => undefined);
      }
    }
    // The places were logged (the URL of each request, say), with the credential in them replaced.
    expect(t.logs.slice(before).some((line) => line.includes('"url":"/v1/models?x=[REDACTED]'))).toBe(true);
    expect(t.logs.slice(before).some((line) => line.includes('"url":"/v1/models?x=w%6B_'))).toBe(false);
    expect(leaks()).toEqual([]);
  });

  it('logs a failing statement by name and code, not its parameters (the key hash)', async () => {
    await t.dataSource.query('ALTER TABLE api_keys RENAME TO api_keys_away');
    try {
      const res = await t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(500);
    } finally {
      await t.dataSource.query('ALTER TABLE api_keys_away RENAME TO api_keys');
    }
    const line = t.logs.find((l) => l.includes('unhandled error'));
    expect(JSON.parse(line!).err).toMatchObject({ code: '42P01', statement: 'continuum_take_request_token' });
    expect(leaks()).toEqual([]);
  });
});

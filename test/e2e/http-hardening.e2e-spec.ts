import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { fetchTrusting, pemPair } from '../support/tls-and-words';

/** Writes `text` one byte every `everyMs` until the server closes the connection; resolves with what it answered. */
function trickle(port: number, head: string, body: string, everyMs: number): Promise<{ answer: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    const text = head + body;
    // The head at once when it is complete, then the rest byte by byte.
    const first = head.endsWith('\r\n\r\n') ? head.length : 1;
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(text.slice(0, first));
      sent = first;
      timer = setInterval(() => {
        if (sent < text.length && !socket.destroyed) socket.write(text[sent++]);
      }, everyMs);
    });
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined); // a reset is one way of being cut
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, ms: Date.now() - started });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after 30 s; answered: ${answer}`));
    }, 30_000).unref();
  });
}

const SLOW_BODY_HEAD =
  'POST /v1/live/client_secrets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';

describe.each(databaseTargets())('HTTP hardening on %s', (target) => {
  describe('at the defaults', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(target);
    });
    afterAll(() => t?.close());

    it('sets the request, header and keep-alive limits on the server itself', () => {
      const server = t.app.getHttpServer() as Server;
      expect({
        headersTimeout: server.headersTimeout,
        requestTimeout: server.requestTimeout,
        keepAliveTimeout: server.keepAliveTimeout,
        maxRequestsPerSocket: server.maxRequestsPerSocket,
      }).toEqual({
        headersTimeout: 10_000,
        requestTimeout: 30_000,
        keepAliveTimeout: 72_000,
        maxRequestsPerSocket: 1000,
      });
    });

    it('sends the security headers on a JSON answer, an error and the pages a browser renders', async () => {
      const { apiKey } = await t.newProject();
      const answers = await Promise.all([
        t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${apiKey}` } }),
        t.app.inject({ method: 'GET', url: '/v1/models' }),
        t.app.inject({ method: 'GET', url: '/v1/no-such-route' }),
        t.app.inject({ method: 'GET', url: '/docs' }),
        t.app.inject({ method: 'GET', url: '/healthz' }),
      ]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 404, 200, 200]);
      for (const answer of answers) {
        expect(answer.headers).toMatchObject({
          'x-content-type-options': 'nosniff',
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
        });
        const csp = String(answer.headers['content-security-policy']);
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("default-src 'self'");
        expect(csp).toContain("object-src 'none'");
        expect(csp).not.toContain('upgrade-insecure-requests'); // plain HTTP here: no upgrade, no HSTS
        expect(answer.headers['strict-transport-security']).toBeUndefined();
      }
    });
  });

  describe('with short timeouts', () => {
    let t: TestApp;
    let port: number;
    beforeAll(async () => {
      // Short, but not so short that a loaded machine's stalled loop (timers run before sockets are read)
      // turns an ordinary request into a 408.
      t = await startTestApp(target, { env: { HTTP_HEADERS_TIMEOUT_SECONDS: '2', HTTP_REQUEST_TIMEOUT_SECONDS: '3' } });
      port = Number(new URL(t.baseUrl).port);
    });
    afterAll(() => t?.close());

    it('cuts a body sent one byte at a time, without a credential, at the request timeout', async () => {
      const { answer, ms } = await trickle(port, SLOW_BODY_HEAD, '{'.padEnd(1000, ' '), 300);
      // 3 s, checked every second; far from the 1000 bytes' 300 s.
      expect(ms).toBeGreaterThanOrEqual(3_000);
      expect(ms).toBeLessThan(7_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    });

    it('cuts headers sent one byte at a time at the headers timeout', async () => {
      const { answer, ms } = await trickle(
        port,
        'GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(200),
        '',
        150,
      );
      expect(ms).toBeGreaterThanOrEqual(2_000);
      expect(ms).toBeLessThan(6_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    });

    it('keeps a WebSocket open well past the request timeout', async () => {
      const { apiKey } = await t.newProject();
      const socket = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        expect(socket.closeCode).toBeNull();
        const pong = new Promise<void>((resolve) => socket.ws.once('pong', () => resolve()));
        socket.ws.ping();
        await pong;
      } finally {
        socket.ws.close();
      }
    });

    it('lets an NDJSON usage stream run past the request timeout while its reader pauses', async () => {
      const events = 100_000; // ~12 MB: more than the loopback socket buffers take, so it is still being sent
      const { projectId, apiKey } = await t.newProject('stream');
      await t.dataSource.query(
        `INSERT INTO sessions (id, project_id, type, model, status, pool, region, created_at, metadata, audio, frames, cost_micros)
         VALUES ('sess_slowreader', $1, 'live', 'vendor-voicechat', 'closed', 'default', 'local', now(), '{}', '{}', $2, 0)`,
        [projectId, events],
      );
      await t.dataSource.query(
        `INSERT INTO meter_events (id, session_id, project_id, seq, frames, cost_micros, recorded_at)
         SELECT 'mev_sess_slowreader_' || g, 'sess_slowreader', $1, g, 1, 0, now() FROM generate_series(1, $2) g`,
        [projectId, events],
      );
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const url = `${t.baseUrl}/v1/usage/normalized-meter-events`;
        httpGet(url, { agent: false, headers: { authorization: `Bearer ${apiKey}` } }, resolve).on('error', reject);
      });
      expect(res.statusCode).toBe(200);
      let lines = 0;
      let bytes = 0;
      const ended = new Promise<void>((resolve, reject) => {
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (const byte of chunk) if (byte === 0x0a) lines++;
        });
        res.on('end', resolve);
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('the stream was cut')));
      });
      await new Promise((resolve) => res.once('data', resolve));
      res.pause();
      await new Promise((resolve) => setTimeout(resolve, 5_000)); // past 3 s and its check
      const beforeResume = bytes;
      res.resume();
      await ended;
      expect(beforeResume).toBeLessThan(bytes);
      expect(lines).toBe(events);
    }, 120_000);

    it('keeps an idle kept-alive connection past the request timeout (only keep-alive ends it)', async () => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      let closed = false;
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => (closed = true));
      await new Promise((resolve) => socket.on('connect', resolve));
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(closed).toBe(false);
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 500));
      socket.destroy();
      expect(answer.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    });
  });

  describe('serving TLS itself', () => {
    let t: TestApp;
    let dir: string;
    let ca: Buffer;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'continuum-hsts-'));
      const { cert, key } = pemPair(dir);
      ca = readFileSync(cert);
      t = await startTestApp(target, { env: { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } });
    });
    afterAll(async () => {
      await t?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('adds HSTS and upgrade-insecure-requests, and keeps the same limits on the TLS server', async () => {
      const answer = await fetchTrusting(ca)(`${t.baseUrl}/healthz`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('strict-transport-security')).toBe('max-age=31536000');
      expect(answer.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
      const server = t.app.getHttpServer() as Server;
      expect([server.headersTimeout, server.requestTimeout]).toEqual([10_000, 30_000]);
    });
  });
});

/** Helpers for SDK tests: a self-signed certificate, a fetch that trusts it, and word overlap. */
import { execFileSync } from 'node:child_process';
import { request } from 'node:https';
import { join } from 'node:path';

export function pemPair(dir: string): { cert: string; key: string } {
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  // prettier-ignore
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-keyout', key, '-out', cert,
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' });
  return { cert, key };
}

/**
 * A fetch that trusts the test's certificate (the SDK's REST calls go over the same TLS port). Bodies
 * other than strings (the SDK's FormData) are encoded as fetch would, with their content type.
 */
export function fetchTrusting(ca: Buffer): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    let payload: string | Buffer | undefined = typeof init?.body === 'string' ? init.body : undefined;
    if (init?.body != null && payload === undefined) {
      const encoded = new Request(url, { method: 'POST', body: init.body });
      payload = Buffer.from(await encoded.arrayBuffer());
      headers['content-type'] = encoded.headers.get('content-type') ?? headers['content-type'];
    }
    return new Promise<Response>((resolve, reject) => {
      const req = request(url, { method: init?.method ?? 'GET', headers, ca }, (res) => {
        const body: Buffer[] = [];
        res.on('data', (chunk: Buffer) => body.push(chunk));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          const status = res.statusCode ?? 0;
          const nullBody = status === 204 || status === 304;
          resolve(new Response(nullBody ? null : Buffer.concat(body), { status, headers: responseHeaders }));
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
}

/** Share of the reference's words that the transcript contains (case and punctuation ignored). */
export function wordsHeard(transcript: string, reference: string): number {
  const heard = new Set(
    transcript
      .toLowerCase()
      .replace(/[^a-z' ]/g, ' ')
      .split(/\s+/)
      .filter(Boolean),
  );
  const words = reference.split(' ');
  return words.filter((w) => heard.has(w)).length / words.length;
}

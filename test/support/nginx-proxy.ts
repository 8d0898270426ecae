import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './local-daemon';
import { waitFor } from './wait-for';

export interface NginxProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

export const NGINX = '/usr/sbin/nginx';

/**
 * Debian's nginx as the reverse proxy in front of the service, configured as an Ingress controller
 * is: it appends the address it saw to X-Forwarded-For and passes WebSocket upgrades. It connects to
 * the upstream from 127.0.0.1, so that is the address the service must trust.
 */
export async function startNginxProxy(upstream: string): Promise<NginxProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'continuum-nginx-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream};
      proxy_bind 127.0.0.1;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    return (await httpStatus(`${url}/healthz`)) === 200;
  }, 10_000).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`nginx did not proxy /healthz: ${error.message} ${stderr}`);
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A GET's status and body, sent from `localAddress` (a loopback address stands for a distinct client). */
export function httpGet(
  url: string,
  options: { localAddress?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: options.localAddress, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function httpStatus(url: string): Promise<number> {
  try {
    return (await httpGet(url)).status;
  } catch {
    return 0;
  }
}

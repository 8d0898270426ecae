// The image's HEALTHCHECK: GET /healthz where the service really listens, whatever TLS_*, HOST and
// PORT say. A wildcard HOST is reached on loopback; with TLS the certificate is for the public name,
// not for the address probed here, so it is not verified (the probe asks "is it alive", not "who is it").
'use strict';
const env = process.env;
const tls = Boolean(env.TLS_CERT_FILE && env.TLS_KEY_FILE);
const wildcard = { '': '127.0.0.1', '0.0.0.0': '127.0.0.1', '::': '::1', '[::]': '::1' };
const host = (env.HOST ?? '').trim();
const hostname = (wildcard[host] ?? host).replace(/^\[(.*)\]$/, '$1');
const request = (tls ? require('node:https') : require('node:http')).get(
  { hostname, port: Number(env.PORT || 8080), path: '/healthz', timeout: 2500, rejectUnauthorized: false },
  (res) => {
    res.resume();
    process.exit(res.statusCode === 200 ? 0 : 1);
  },
);
request.on('timeout', () => request.destroy(new Error('timeout')));
request.on('error', () => process.exit(1));

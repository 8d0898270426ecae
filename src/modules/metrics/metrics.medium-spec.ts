import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { freePort } from '../../../test/support/local-daemon';
import { httpGet } from '../../../test/support/nginx-proxy';
import { MetricsController } from './metrics.controller';
import { MetricsModule } from './metrics.module';
import { MetricsServer } from './metrics-server';

/**
 * The metrics module with the app's connection pool under it: the public route, and METRICS_PORT moving
 * /metrics to a port of its own that opens at bootstrap and closes with the module. (Moved from
 * test/e2e/metrics-port.e2e-spec.ts, which started the whole app for it.)
 */
describe.each(databaseTargets().slice(0, 1))('metrics module on %s', (target) => {
  const reply = { header: jest.fn() };
  const scrape = (m: MediumModule) =>
    m.get(MetricsController).scrape(reply as unknown as Parameters<MetricsController['scrape']>[0]);

  it('serves the registry on the public route, with the pool read at scrape time', async () => {
    const m = await mediumModule(target, { imports: [MetricsModule] });
    try {
      const text = await scrape(m);
      expect(text).toContain('continuum_sessions_open');
      expect(text).toMatch(/continuum_db_pool_connections\{state="total"\} \d+/);
      expect(reply.header).toHaveBeenCalledWith('content-type', expect.stringMatching(/^text\/plain; version=0\.0\.4/));
      expect(m.get(MetricsServer).port).toBeNull();
    } finally {
      await m.close();
    }
  });

  it('serves /metrics on its own port only with METRICS_PORT, and closes that port with the module', async () => {
    const metricsPort = await freePort();
    const m = await mediumModule(target, {
      imports: [MetricsModule],
      env: { METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' },
    });
    try {
      expect(m.get(MetricsServer).port).toBe(metricsPort);
      const scraped = await httpGet(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.body).toContain('continuum_sessions_open');
      // The metrics port serves nothing else, and the public route no longer exists.
      expect((await httpGet(`http://127.0.0.1:${metricsPort}/v1/models`)).status).toBe(404);
      await expect(Promise.resolve().then(() => scrape(m))).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await m.close();
    }
    await expect(httpGet(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow(/ECONNREFUSED/);
  });
});

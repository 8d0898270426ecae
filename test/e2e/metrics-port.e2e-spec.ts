import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { freePort, httpGet } from '../support/nginx-proxy';
import { MetricsServer } from '../../src/modules/metrics/metrics-server';

/** METRICS_PORT moves /metrics off the public port; without it, /metrics stays where it was. */
describe('METRICS_PORT', () => {
  const target = databaseTargets()[0];
  let app: TestApp;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    app = await startTestApp(target, { env: { METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' } });
  });
  afterAll(async () => app?.close());

  it('serves /metrics on its own port only', async () => {
    expect(app.app.get(MetricsServer).port).toBe(metricsPort);
    const scraped = await httpGet(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('continuum_sessions_open');
    const publicPort = await httpGet(`${app.baseUrl}/metrics`);
    expect(publicPort.status).toBe(404);
    expect(JSON.parse(publicPort.body).error.code).toBe('not_found');
    // The metrics port serves nothing else.
    expect((await httpGet(`http://127.0.0.1:${metricsPort}/v1/models`)).status).toBe(404);
    expect((await httpGet(`${app.baseUrl}/healthz`)).status).toBe(200);
  });

  it('closes the metrics port with the app', async () => {
    const other = await startTestApp(target, { env: { METRICS_PORT: String(await freePort()), HOST: '127.0.0.1' } });
    const port = other.app.get(MetricsServer).port!;
    await other.close();
    await expect(httpGet(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow(/ECONNREFUSED/);
  });
});

/**
 * Swagger UI in a real browser (Debian's Chromium driven by playwright-core): "Try it out" with an
 * API key pasted under Authorize → bearer reaches the service with `Authorization: Bearer <key>`
 * and gets a 200; the page links the AsyncAPI document. All of it under the service's CSP, which the
 * browser would report breaking.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const CHROMIUM = '/usr/bin/chromium';
const describeWithChromium = existsSync(CHROMIUM) ? describe : describe.skip;

describeWithChromium('Swagger UI', () => {
  let t: TestApp;
  let browser: Browser;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0]);
    ({ apiKey } = await t.newProject());
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('tries GET /v1/models with an API key given under Authorize, and links the AsyncAPI document', async () => {
    const page = await browser.newPage();
    const refusedByCsp: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) refusedByCsp.push(message.text());
    });
    const sent: { url: string; authorization?: string }[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/v1/models')) {
        sent.push({ url: request.url(), authorization: request.headers()['authorization'] });
      }
    });
    const loaded = await page.goto(`${t.baseUrl}/docs`);
    expect(loaded?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.locator('button.authorize').first().click();
    const bearer = page.locator('.auth-container').filter({ hasText: 'bearer' }).first();
    await bearer.locator('input').fill(apiKey);
    await bearer.locator('button.authorize').click();
    await page.locator('button.btn-done').first().click();

    await page.locator('#operations-Models-listModels .opblock-summary').click();
    await page.locator('#operations-Models-listModels button.try-out__btn').click();
    await page.locator('#operations-Models-listModels button.execute').click();
    const status = page
      .locator('#operations-Models-listModels .live-responses-table tbody .response-col_status')
      .first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.innerText()).trim()).toBe('200');
    expect(sent).toEqual([{ url: `${t.baseUrl}/v1/models`, authorization: `Bearer ${apiKey}` }]);

    const link = page.locator('.info .description a[href="/v1/asyncapi.json"]');
    expect(await link.count()).toBe(1);
    expect(refusedByCsp).toEqual([]);
  }, 60_000);
});

import { existsSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { connectWithApiKey } from '../../libs/client/src/node.js';
import { encodeWav } from '../../src/platform/audio/wav';
import { artifactPath, Browser, buildPlayground, CHROMIUM, launchChromium } from '../support/chromium';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The playground in Debian's Chromium, with a fake microphone speaking a flite sentence: the page is
 * public, mints a client secret with the pasted key, opens the socket with the secret (never the key),
 * shows the transcript, plays the persona's answer, and explains a refused key. Screenshots go to
 * test-artifacts/.
 */
const describeIfChromium = existsSync(CHROMIUM) ? describe : describe.skip;

describeIfChromium('playground in Chromium', () => {
  let t: TestApp;
  let apiKey: string;
  let browser: Browser;
  const socketUrls: string[] = [];
  /** What the browser refused under the service's CSP (the page, its modules, worklets and sockets): nothing. */
  const refusedByCsp: string[] = [];
  const secretRequests: { url: string; authorization: string | undefined }[] = [];

  beforeAll(async () => {
    await buildPlayground();
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2' } });
    ({ apiKey } = await t.newProject('playground'));
    const [ask] = await fliteUtterances('awb', ['what time is it right now']);
    // Long trailing silence: Chromium loops the file, and the answer must play before the question returns.
    browser = await launchChromium(concatAudio([silence(600), toSessionAudio(ask.clip), silence(14_000)]));
  }, 180_000);
  afterEach(() => expect(refusedByCsp.splice(0)).toEqual([]));
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const openPage = async (): Promise<Page> => {
    const page = await browser.context.newPage();
    page.on('websocket', (ws) => socketUrls.push(ws.url()));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) refusedByCsp.push(message.text());
    });
    page.on('request', (request) => {
      if (request.url().includes('client_secrets')) {
        secretRequests.push({ url: request.url(), authorization: request.headers()['authorization'] });
      }
    });
    const response = await page.goto(`${t.baseUrl}/playground`);
    expect(response?.status()).toBe(200); // public: no key needed for the page itself
    expect(response?.headers()).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff' });
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.url()).toBe(`${t.baseUrl}/playground/`);
    return page;
  };

  const start = async (page: Page, key: string, model: string) => {
    await page.fill('#api-key', key);
    await page.selectOption('#model', model);
    await page.click('#start');
  };

  it('transcribes the microphone through a client secret, and the key stays out of URLs and storage', async () => {
    const page = await openPage();
    await start(page, apiKey, 'vendor-asr-streaming');
    await page.locator('#finals li', { hasText: /time/ }).first().waitFor({ timeout: 60_000 });
    expect(await page.textContent('#lat-partial')).toMatch(/^\d+ ms$/);
    expect(await page.textContent('#lat-final')).toMatch(/^\d+ ms$/);
    expect(await page.textContent('#turns')).toMatch(/speech started at \d+ ms/);
    await page.screenshot({ path: artifactPath('playground-transcription.png'), fullPage: true });

    await page.click('#stop');
    await page.locator('#close-reason', { hasText: 'close_requested' }).waitFor();
    expect(await page.textContent('#usage')).toMatch(/^[1-9]\d*\.\d\d s metered/);

    // The key went once, in a header, to mint the secret; the socket carried the secret.
    expect(secretRequests).toEqual([{ url: `${t.baseUrl}/v1/live/client_secrets`, authorization: `Bearer ${apiKey}` }]);
    expect(socketUrls).toHaveLength(1);
    expect(socketUrls[0]).toMatch(/\/v1\/live\/sessions\?token=ek_[0-9A-Za-z]+$/);
    // Evaluated in the page (a string: this file is compiled without the DOM library).
    const stored = await page.evaluate<string>(
      'JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href])',
    );
    const cookies = JSON.stringify(await browser.context.cookies());
    for (const place of [...socketUrls, stored, cookies]) expect(place).not.toContain(apiKey);
    await page.close();
  }, 120_000);

  it('transcribes a WAV file chosen in the page (decoded, resampled and sent at real time)', async () => {
    const [said] = await fliteUtterances('awb', ['turn off the lights in the kitchen']);
    const wav = artifactPath('lights.wav');
    // At flite's own rate (not 24 kHz), so the page's decoder and resampler do real work.
    writeFileSync(wav, encodeWav({ sampleRate: said.clip.sampleRate, samples: said.clip.samples }));
    const page = await openPage();
    await page.setInputFiles('#file', wav);
    expect(await page.isChecked('input[name="source"][value="file"]')).toBe(true);
    await start(page, apiKey, 'vendor-asr-streaming');
    await page.locator('#finals li', { hasText: /lights/ }).waitFor({ timeout: 60_000 });
    await page.locator('#status', { hasText: /File sent/ }).waitFor();
    await page.click('#stop');
    await page.locator('#close-reason', { hasText: 'close_requested' }).waitFor();
    await page.close();
  }, 60_000);

  it('talks with vendor-voicechat: the answer is written and heard', async () => {
    const page = await openPage();
    await start(page, apiKey, 'vendor-voicechat');
    await page.locator('#reply', { hasText: /^It is / }).waitFor({ timeout: 60_000 });
    // The output's AnalyserNode reads the answer's samples while they play.
    const peak = await page.evaluate<number>(`(async () => {
      const player = globalThis.continuumPlayground.player;
      let loudest = 0;
      for (let i = 0; i < 60 && loudest < 0.05; i++) {
        loudest = Math.max(loudest, player.level());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return loudest;
    })()`);
    expect(peak).toBeGreaterThan(0.05);
    await page.locator('#lat-answer', { hasText: /^\d+ ms$/ }).waitFor();
    await page.screenshot({ path: artifactPath('playground-voicechat.png'), fullPage: true });
    // The figures the page showed, and the device rate the capture worklet resampled from, for the record.
    const figures = {
      deviceSampleRate: await page.evaluate<number>('globalThis.continuumPlayground.player.context.sampleRate'),
      firstPartial: await page.textContent('#lat-partial'),
      finalAfterEndOfSpeech: await page.textContent('#lat-final'),
      firstAnswerAudio: await page.textContent('#lat-answer'),
    };
    writeFileSync(artifactPath('playground-latency.json'), `${JSON.stringify(figures, null, 2)}\n`);
    await page.click('#stop');
    await page.locator('#close-reason', { hasText: 'close_requested' }).waitFor();
    await page.close();
  }, 120_000);

  it("plays chunks back to back with no gap, and falls silent at once on flush (the browser's own renderer)", async () => {
    const page = await openPage();
    // Rendered offline by Chromium's Web Audio: a continuous 300 Hz tone cut into 50 ms chunks, then a flush.
    const result = await page.evaluate<{
      maxGapError: number;
      playedRms: number;
      afterFlushPeak: number;
    }>(`(async () => {
      const { PcmPlayer } = await import('@continuum/client/browser');
      const rate = 24000, chunk = 1200, chunks = 20;
      const context = new OfflineAudioContext(1, rate * 2, rate);
      const player = new PcmPlayer({ context, jitterMs: 100 });
      const tone = (i) => Math.round(12000 * Math.sin((2 * Math.PI * 300 * i) / rate));
      for (let c = 0; c < chunks; c++) player.enqueue(Int16Array.from({ length: chunk }, (_, i) => tone(c * chunk + i)));
      const flushAt = 0.1 + 0.5; // half a second into playback
      context.suspend(flushAt).then(() => { player.flush(); context.resume(); });
      const out = (await context.startRendering()).getChannelData(0);
      const start = Math.round(0.1 * rate), stop = Math.round(flushAt * rate);
      let maxGapError = 0, sum = 0, afterFlushPeak = 0;
      for (let i = start; i < stop; i++) {
        maxGapError = Math.max(maxGapError, Math.abs(out[i] - tone(i - start) / 32768));
        sum += out[i] * out[i];
      }
      for (let i = stop + 128; i < out.length; i++) afterFlushPeak = Math.max(afterFlushPeak, Math.abs(out[i]));
      return { maxGapError, playedRms: Math.sqrt(sum / (stop - start)), afterFlushPeak };
    })()`);
    expect(result.playedRms).toBeGreaterThan(0.2); // 12000/32768/√2 ≈ 0.26
    expect(result.maxGapError).toBeLessThan(0.01); // sample-exact joins: a gap would read as the tone's full level
    expect(result.afterFlushPeak).toBe(0); // within one render quantum (128 samples) of the flush
    await page.close();
  }, 60_000);

  it('explains a service at capacity and a project without credit', async () => {
    const page = await openPage();
    // The app has two engine streams: two open sessions take them all.
    const busy = await Promise.all(
      [1, 2].map(() => connectWithApiKey({ baseUrl: t.baseUrl, apiKey, session: { model: 'vendor-asr-streaming' } })),
    );
    try {
      await start(page, apiKey, 'vendor-asr-streaming');
      await page.waitForSelector('#error:not([hidden])');
      expect(await page.textContent('#error')).toMatch(/at capacity: every speech stream is busy\. Try again in \d+ s/);
    } finally {
      await Promise.all(busy.map((session) => session.close()));
    }
    const broke = await t.newProject('no credit');
    await t.dataSource.query('UPDATE projects SET balance_micros = 0 WHERE id = $1', [broke.projectId]);
    await start(page, broke.apiKey, 'vendor-voicechat');
    await page.locator('#error', { hasText: /credit is used up/ }).waitFor();
    await page.screenshot({ path: artifactPath('playground-no-credit.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('explains a connection lost mid-session', async () => {
    const page = await openPage();
    // Playwright sits between page and service, forwards both ways, and cuts the page's socket without
    // a session.closed once the session has started: what a dropped network looks like to the page.
    await page.routeWebSocket(/\/v1\/live\/sessions/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => {
        ws.send(message);
        if (String(message).includes('"session.started"')) {
          setTimeout(() => {
            ws.close({ code: 4000, reason: 'network gone' });
            server.close();
          }, 500);
        }
      });
    });
    await start(page, apiKey, 'vendor-asr-streaming');
    await page.locator('#error', { hasText: /connection was lost \(WebSocket close 4000 network gone\)/ }).waitFor();
    expect(await page.textContent('#close-reason')).toBe('connection_lost');
    expect(await page.isEnabled('#start')).toBe(true);
    await page.screenshot({ path: artifactPath('playground-connection-lost.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('explains a refused key and opens no socket', async () => {
    const before = socketUrls.length;
    const page = await openPage();
    await start(page, 'wk_this_key_does_not_exist', 'vendor-voicechat');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/API key was refused \(invalid_api_key\)/);
    expect(socketUrls).toHaveLength(before);
    expect(await page.isEnabled('#start')).toBe(true);
    await page.screenshot({ path: artifactPath('playground-refused-key.png'), fullPage: true });
    await page.close();
  }, 60_000);
});

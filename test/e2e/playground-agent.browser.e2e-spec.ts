import { existsSync } from 'node:fs';
import { cleanup } from 'node-datachannel';
import type { Page } from 'playwright-core';
import { chatBody } from '../../src/engines/cascade/testing/fake-chat-server';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { artifactPath, Browser, buildPlayground, CHROMIUM, launchChromium } from '../support/chromium';
import { randomCallPort, startConversationApp, type ConversationApp } from '../support/conversation-app';

/**
 * The playground's agent mode in Debian's Chromium: OpenAI's Agents SDK with its default transport, a
 * WebRTC call (`POST /v1/realtime/calls` with the client secret the page mints), whose clock tool runs in
 * the page. The fake microphone asks the time; the typed question follows on the same call. Where the
 * calls endpoint answers 404 (calls turned off), the page falls back to the Realtime WebSocket.
 * vendor-voicechat is a cascade whose chat upstream calls the tool and then answers with its output.
 */
const describeIfChromium = existsSync(CHROMIUM) ? describe : describe.skip;

describeIfChromium('playground agent mode in Chromium', () => {
  let app: ConversationApp;
  let browser: Browser;

  beforeAll(async () => {
    await buildPlayground();
    const [[question], started] = await Promise.all([
      fliteUtterances('awb', ['what time is it']),
      startConversationApp({ WEBRTC_UDP_PORT: randomCallPort() }, { tls: false }),
    ]);
    app = started;
    let calls = 0;
    app.chatPlan = (request) => {
      const last = chatBody(request).messages.at(-1);
      if (last?.role === 'tool') {
        const { time } = JSON.parse(String(last.content)) as { time: string };
        return { kind: 'reply', pieces: ['It is ', time, ' where you are.'], delayMs: 5 };
      }
      return { kind: 'tool_calls', calls: [{ id: `call_clock_${++calls}`, name: 'get_time', argumentPieces: ['{}'] }] };
    };
    // About 3 s of voice for an answer, so it is still playing when the page shows its words.
    app.msPerChar = 100;
    browser = await launchChromium(concatAudio([silence(1500), toSessionAudio(question.clip), silence(30_000)]));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    cleanup(); // libdatachannel's threads, which would keep the worker alive
  });

  interface Traffic {
    posts: { url: string; status: number }[];
    sockets: string[];
  }

  const openPage = async (): Promise<{ page: Page; traffic: Traffic }> => {
    const page = await browser.context.newPage();
    const traffic: Traffic = { posts: [], sockets: [] };
    page.on('websocket', (ws) => traffic.sockets.push(ws.url()));
    page.on('response', (res) => {
      if (res.request().method() === 'POST') traffic.posts.push({ url: res.url(), status: res.status() });
    });
    await page.goto(`${app.t.baseUrl}/playground/`);
    await page.fill('#api-key', app.apiKey);
    await page.selectOption('#model', 'agent');
    return { page, traffic };
  };

  /** The loudest the page's output meter reads within 3 s (it follows what plays). */
  const peakLevel = (page: Page) =>
    page.evaluate<number>(`(async () => {
      let loudest = 0;
      for (let i = 0; i < 60 && loudest < 0.05; i++) {
        loudest = Math.max(loudest, Number(document.getElementById('level').value));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return loudest;
    })()`);

  /** The n-th (from 0) clock call in the page, and the answer carrying its time on screen. */
  const answeredWithTime = async (page: Page, n: number): Promise<string> => {
    const call = page.locator('#tools li').nth(n);
    await call.waitFor({ timeout: 45_000 });
    const time = /get_time\(\) → (.+)$/.exec((await call.textContent()) ?? '')?.[1];
    expect(time).toMatch(/\d/);
    await page.locator('#reply', { hasText: `It is ${time} where you are.` }).waitFor({ timeout: 30_000 });
    return time!;
  };

  it('calls over WebRTC with the Agents SDK: a spoken question runs the page’s clock and the answer is heard; a typed one follows', async () => {
    const { page, traffic } = await openPage();
    await page.check('input[name="source"][value="microphone"]');
    await page.click('#start');
    await page.locator('#status', { hasText: /Agent session sess_\w+ running over WebRTC/ }).waitFor({
      timeout: 30_000,
    });
    expect(await page.evaluate(() => (globalThis as any).continuumPlayground.agentTransport)).toBe('webrtc');

    // The fake microphone says "what time is it": heard, transcribed, the tool runs here, the answer plays.
    const spokenTime = await answeredWithTime(page, 0);
    expect(await peakLevel(page)).toBeGreaterThan(0.05);
    await page.locator('#turns li', { hasText: 'response completed' }).nth(1).waitFor();
    await page.screenshot({ path: artifactPath('playground-agent.png'), fullPage: true });
    const second = app.chat.requests.map((r) => chatBody(r)).find((b) => b.messages.some((m) => m.role === 'tool'));
    expect(second?.messages.find((m) => m.role === 'tool')).toMatchObject({
      tool_call_id: 'call_clock_1',
      content: JSON.stringify({ time: spokenTime }),
    });

    await page.fill('#ask-text', 'What time is it now?');
    await page.click('#ask button[type="submit"]');
    await answeredWithTime(page, 1);

    // One POST to the calls endpoint with the secret, answered; no socket was opened.
    expect(traffic.posts.filter((p) => p.url.endsWith('/v1/realtime/calls'))).toEqual([
      { url: `${app.t.baseUrl}/v1/realtime/calls`, status: 201 },
    ]);
    expect(traffic.sockets).toEqual([]);
    await page.click('#stop');
    await page.locator('#close-reason', { hasText: 'call closed' }).waitFor();
    await page.close();
  }, 150_000);

  it('falls back to the Realtime WebSocket with the same secret where the calls endpoint answers 404', async () => {
    const { page, traffic } = await openPage();
    // What a service with WEBRTC_UDP_PORT=0 answers (before it reads the credential: the secret is not spent).
    await page.route('**/v1/realtime/calls', (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: JSON.stringify({ error: { type: 'invalid_request_error', code: 'not_found', message: 'off' } }),
      }),
    );
    await page.check('input[name="source"][value="file"]'); // no microphone: the question is typed
    await page.click('#start');
    await page.locator('#status', { hasText: /Agent session sess_\w+ running over the WebSocket/ }).waitFor({
      timeout: 30_000,
    });
    const before = await page.locator('#tools li').count();
    await page.fill('#ask-text', 'What time is it?');
    await page.click('#ask button[type="submit"]');
    await answeredWithTime(page, before);
    expect(await peakLevel(page)).toBeGreaterThan(0.05);
    expect(traffic.sockets.at(-1)).toMatch(/\/v1\/realtime\?model=vendor-voicechat$/);
    await page.click('#stop');
    await page.locator('#close-reason', { hasText: 'socket closed (1000)' }).waitFor();
    await page.close();
  }, 90_000);
});

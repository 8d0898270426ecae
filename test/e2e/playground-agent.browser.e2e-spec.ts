import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { chatBody, startFakeChatServer } from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import { silence } from '../../src/engines/embedded/testing/speech-fixtures';
import { artifactPath, Browser, buildPlayground, CHROMIUM, launchChromium } from '../support/chromium';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The playground's agent mode in Debian's Chromium: a voice agent over the OpenAI Realtime conversation
 * API whose clock tool runs in the page. vendor-voicechat is a cascade whose chat upstream calls the tool
 * and then answers with its output, and whose speech upstream speaks the answer.
 */
const describeIfChromium = existsSync(CHROMIUM) ? describe : describe.skip;

describeIfChromium('playground agent mode in Chromium', () => {
  let t: TestApp;
  let apiKey: string;
  let browser: Browser;
  let chat: RecordingServer;
  let speech: RecordingServer;
  const socketUrls: string[] = [];

  beforeAll(async () => {
    await buildPlayground();
    chat = await startFakeChatServer((request) => {
      const tool = chatBody(request).messages.find((m) => m.role === 'tool');
      if (tool) {
        const { time } = JSON.parse(String(tool.content)) as { time: string };
        return { kind: 'reply', pieces: ['It is ', time, ' where you are.'], delayMs: 5 };
      }
      return { kind: 'tool_calls', calls: [{ id: 'call_clock_1', name: 'get_time', argumentPieces: ['{}'] }] };
    });
    // About 3 s of voice for the answer, so it is still playing when the page shows its words.
    speech = await startFakeSpeechServer(() => ({ msPerChar: 100, chunkMs: 100, chunkEveryMs: 5 }));
    const engines = {
      engines: {
        listen: { kind: 'embedded', maxStreams: 2 },
        voicechat: {
          kind: 'cascade',
          listener: 'listen',
          languages: ['en'],
          chat: { url: chat.baseUrl, model: 'llama-3.2-3b-instruct', systemPrompt: 'You are Aria.', timeoutMs: 5000 },
          speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
        },
      },
      models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
    };
    t = await startTestApp(databaseTargets()[0], { env: { ENGINES_JSON: JSON.stringify(engines) } });
    ({ apiKey } = await t.newProject('agent'));
    browser = await launchChromium(silence(20_000));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await chat?.close();
    await speech?.close();
  });

  const openPage = async (): Promise<Page> => {
    const page = await browser.context.newPage();
    page.on('websocket', (ws) => socketUrls.push(ws.url()));
    await page.goto(`${t.baseUrl}/playground/`);
    return page;
  };

  it('asks by text; the model calls the page’s clock; the answer carries its time and is heard', async () => {
    const page = await openPage();
    await page.fill('#api-key', apiKey);
    await page.selectOption('#model', 'agent');
    await page.check('input[name="source"][value="file"]'); // no microphone: the question is typed
    await page.click('#start');
    await page.locator('#status', { hasText: /Agent session sess_\w+ running/ }).waitFor({ timeout: 30_000 });
    await page.fill('#ask-text', 'What time is it?');
    await page.click('#ask button[type="submit"]');

    const call = page.locator('#tools li').first();
    await call.waitFor({ timeout: 30_000 });
    const time = /get_time\(\) → (.+)$/.exec((await call.textContent()) ?? '')?.[1];
    expect(time).toMatch(/\d/);
    await page.locator('#reply', { hasText: `It is ${time} where you are.` }).waitFor({ timeout: 30_000 });
    const peak = await page.evaluate<number>(`(async () => {
      let loudest = 0;
      for (let i = 0; i < 60 && loudest < 0.05; i++) {
        loudest = Math.max(loudest, Number(document.getElementById('level').value));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return loudest;
    })()`);
    expect(peak).toBeGreaterThan(0.05);
    await page.locator('#turns li', { hasText: 'response completed' }).nth(1).waitFor();
    await page.screenshot({ path: artifactPath('playground-agent.png'), fullPage: true });

    // The tool's output went to the model as a tool message, answering the call it made.
    const second = chat.requests.map((r) => chatBody(r)).find((b) => b.messages.some((m) => m.role === 'tool'));
    expect(second?.messages.find((m) => m.role === 'tool')).toMatchObject({
      tool_call_id: 'call_clock_1',
      content: JSON.stringify({ time }),
    });
    // The socket carried a client secret in its subprotocol, never the key.
    expect(socketUrls.at(-1)).toMatch(/\/v1\/realtime\?model=vendor-voicechat$/);
    await page.click('#stop');
    await page.locator('#close-reason', { hasText: 'socket closed (1000)' }).waitFor();
    await page.close();
  }, 120_000);
});

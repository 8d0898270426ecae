/**
 * The Agents SDK's RealtimeSession with its default transport (WebRTC) in Debian's Chromium, on a page
 * served from another origin, with a client secret: the fake microphone speaks a question, the model
 * calls a tool that runs in the page, and the answer is heard on the call's audio track; interrupt()
 * cuts a long answer. vendor-voicechat is the cascade on test upstreams.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { cleanup } from 'node-datachannel';
import type { Page } from 'playwright-core';
import { chatBody } from '../../src/engines/cascade/testing/fake-chat-server';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { CHROMIUM, launchChromium, type Browser } from '../support/chromium';
import { randomCallPort, startConversationApp, type ConversationApp } from '../support/conversation-app';
import { waitFor } from '../support/wait-for';

const describeIfChromium = existsSync(CHROMIUM) ? describe : describe.skip;
const BUNDLE = join(dirname(require.resolve('@openai/agents-realtime')), 'bundle');

const PAGE = `<!doctype html><meta charset="utf-8"><title>agent</title>
<script type="module">
import { RealtimeAgent, RealtimeSession, tool } from './openai-realtime-agents.mjs';
window.events = [];
window.toolCalls = 0;
window.startAgent = async (baseUrl, secret) => {
  const getTime = tool({
    name: 'get_time',
    description: 'The time where the user is',
    parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    strict: true,
    execute: async () => { window.toolCalls++; return '10:42'; },
  });
  const agent = new RealtimeAgent({ name: 'Aria', instructions: 'Be brief.', tools: [getTime] });
  const session = new RealtimeSession(agent, { model: 'gpt-realtime' });
  session.on('transport_event', (event) => window.events.push(event));
  window.session = session;
  const started = Date.now();
  await session.connect({ apiKey: secret, url: baseUrl + '/v1/realtime/calls' });
  return { ms: Date.now() - started, callId: session.transport.callId ?? null };
};
window.heard = async () => {
  const stats = await window.session.transport.connectionState.peerConnection.getStats();
  let energy = 0;
  let packets = 0;
  stats.forEach((s) => {
    if (s.type === 'inbound-rtp' && s.kind === 'audio') { energy += s.totalAudioEnergy ?? 0; packets += s.packetsReceived ?? 0; }
  });
  return { energy, packets };
};
</script>`;

describeIfChromium('the Agents SDK over WebRTC in Chromium', () => {
  let app: ConversationApp;
  let browser: Browser;
  let site: Server;
  let siteUrl: string;

  beforeAll(async () => {
    app = await startConversationApp({ WEBRTC_UDP_PORT: randomCallPort() }, { tls: false });
    app.msPerChar = 40;
    app.chatPlan = (request) => {
      const messages = chatBody(request).messages;
      const last = messages.at(-1);
      if (last?.role === 'tool') return { kind: 'reply', pieces: ['It is ', '10:42', ' where you are.'] };
      if (/long/i.test(String(last?.content)))
        return {
          kind: 'reply',
          pieces: ['This answer goes on and on for a good many seconds so that it can be interrupted.'],
        };
      return { kind: 'tool_calls', calls: [{ id: 'call_1', name: 'get_time', argumentPieces: ['{}'] }] };
    };
    // The page's origin is not the service's: the SDK's POST is a cross-origin request.
    site = createServer((req, res) => {
      if (req.url === '/' || req.url === '/index.html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
        return;
      }
      const file = join(BUNDLE, (req.url ?? '').replace(/^\//, ''));
      if (!/^\/[\w.-]+\.mjs$/.test(req.url ?? '') || !existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
    const [question] = await fliteUtterances('awb', ['what time is it']);
    browser = await launchChromium(concatAudio([silence(1500), toSessionAudio(question.clip), silence(20_000)]));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await app?.close();
    cleanup(); // libdatachannel's threads, which would keep the worker alive
  });

  async function secret(): Promise<string> {
    const res = await fetch(`${app.t.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${app.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ session: { type: 'realtime', model: 'gpt-realtime' } }),
    });
    return ((await res.json()) as { value: string }).value;
  }

  const events = (page: Page) =>
    page.evaluate(() => (globalThis as any).events as { type: string; [k: string]: any }[]);

  it('connects with its default transport, asks by voice, runs the tool in the page, and the answer is heard; interrupt() cuts a long one', async () => {
    const page = await browser.context.newPage();
    await page.goto(siteUrl);
    const { ms, callId } = await page.evaluate(
      ([base, value]) => (globalThis as any).startAgent(base, value),
      [app.t.baseUrl, await secret()],
    );
    expect(callId).toMatch(/^rtc_/);
    // connect() resolved on session.updated for its session.update, not on its 5 s fallback.
    expect(ms).toBeLessThan(5000);
    expect((await events(page)).map((e) => e.type)).toEqual(
      expect.arrayContaining(['session.created', 'session.updated']),
    );

    let done: { type: string; [k: string]: any } | undefined;
    await waitFor(async () => {
      done = (await events(page)).find(
        (e) => e.type === 'response.done' && /10:42/.test(JSON.stringify(e.response.output ?? [])),
      );
      return done !== undefined;
    }, 60_000);
    expect(await page.evaluate(() => (globalThis as any).toolCalls)).toBe(1);
    await waitFor(async () => (await events(page)).some((e) => e.type === 'output_audio_buffer.stopped'), 20_000);
    const heard = await page.evaluate(() => (globalThis as any).heard());
    expect(heard.packets).toBeGreaterThan(20);
    expect(heard.energy).toBeGreaterThan(0.001);
    expect((await events(page)).filter((e) => e.type === 'error')).toEqual([]);

    // A long answer, cut by interrupt().
    await page.evaluate(() => (globalThis as any).session.sendMessage('Say something long.'));
    await waitFor(
      async () => (await events(page)).filter((e) => e.type === 'output_audio_buffer.started').length >= 2,
      30_000,
    );
    await page.evaluate(() => (globalThis as any).session.interrupt());
    await waitFor(async () => (await events(page)).some((e) => e.type === 'output_audio_buffer.cleared'), 5000);
    await waitFor(
      async () => (await events(page)).some((e) => e.type === 'response.done' && e.response.status === 'cancelled'),
      5000,
    );
    await page.evaluate(() => (globalThis as any).session.close());
    await page.close();
  }, 150_000);
});

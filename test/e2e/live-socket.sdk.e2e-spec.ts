import OpenAI from 'openai';
import { LiveWS } from 'openai/resources/live/ws';
import { chunks, silence, sleep, tone } from '../support/audio';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/** Speech-like audio for the scripted engine: bursts it hears as speech, pauses that end turns. */
function conversation(seconds: number): Buffer {
  const parts: Buffer[] = [];
  for (let t = 0; t < seconds; t += 2.5) parts.push(tone(1500, 440), silence(1000));
  return Buffer.concat(parts).subarray(0, seconds * 48_000);
}

describe.each(databaseTargets())('live socket with the official openai SDK on %s', (target) => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp(target);
    ({ apiKey } = await t.newProject());
  });
  afterAll(() => t?.close());

  it('starts with an API key, streams 10 s of audio, gets transcripts, speech and usage, and closes', async () => {
    const client = new OpenAI({ apiKey, baseURL: `${t.baseUrl}/v1` });
    const live = new LiveWS(client);
    const events: any[] = [];
    const errors: unknown[] = [];
    live.on('event', (e) => events.push(e));
    live.on('error', (e) => errors.push(e));
    const closed = new Promise<number>((resolve) => live.socket.on('close', (code: number) => resolve(code)));

    live.send({
      type: 'session.start',
      event_id: 'evt_start',
      session: {
        model: 'vendor-voicechat',
        audio: { format: { type: 'audio/pcm', rate: 24000 }, output: { voice: 'aria' } },
      },
    });
    await until(() => events.some((e) => e.type === 'session.started'));
    const started = events.find((e) => e.type === 'session.started');
    expect(started).toMatchObject({
      client_event_id: 'evt_start',
      session: { id: expect.stringMatching(/^sess_/), model: 'vendor-voicechat', status: 'active' },
    });
    expect(started.session.expires_at).toBeGreaterThan(Date.now() / 1000 + 100);

    for (const chunk of chunks(conversation(10), 400)) {
      live.send({ type: 'session.input_audio.append', audio: chunk.toString('base64') });
      await sleep(400);
    }
    await until(() => events.filter((e) => e.type === 'session.output_audio.delta').length > 0);
    live.send({ type: 'session.close', event_id: 'evt_close' });
    await until(() => events.some((e) => e.type === 'session.closed'));
    expect(await closed).toBe(1000);
    expect(errors).toEqual([]);

    const byType = (type: string) => events.filter((e) => e.type === type);
    const inputs = byType('session.input_transcript.delta');
    expect(inputs.length).toBeGreaterThan(0);
    for (const d of inputs) {
      expect(Number.isInteger(d.start_ms) && Number.isInteger(d.end_ms) && d.end_ms >= d.start_ms).toBe(true);
      expect(d.event_id).toEqual(expect.any(String));
      expect(d.item_id).toEqual(expect.any(String));
    }
    expect(inputs.some((d) => d.done === true && typeof d.transcript === 'string')).toBe(true);
    expect(byType('session.output_transcript.delta').length).toBeGreaterThan(0);
    const audio = byType('session.output_audio.delta');
    expect(audio[0].event_id).toBeUndefined();
    expect(Buffer.from(audio[0].delta, 'base64').length % 2).toBe(0);
    expect(byType('session.turn.event').length).toBeGreaterThan(0);

    const usage = byType('session.usage.updated');
    expect(usage.length).toBeGreaterThanOrEqual(2); // at least every 5 s of audio
    const closedEvent = byType('session.closed')[0];
    expect(closedEvent).toMatchObject({
      reason: 'close_requested',
      client_event_id: 'evt_close',
      usage: { seconds: 10, frames: 125 },
    });
    const ids = events.map((e) => e.event_id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);

    const rest = await t.app.inject({
      method: 'GET',
      url: `/v1/sessions/${started.session.id}`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(rest.json()).toMatchObject({
      id: started.session.id,
      status: 'closed',
      close_reason: 'close_requested',
      type: 'live',
      usage: { frames: 125, seconds: 10 },
    });
  }, 60_000);
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

import { sleep, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { balanceMicros, parseNdjson, reader, Reader, usdMicros } from './usage-fixtures';

const VOICECHAT_START = {
  type: 'session.start',
  session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } },
};

/**
 * Sessions run through the live socket, then the five views of their usage: the in-band
 * `session.closed`, GET /v1/sessions/{id}, the report (both groupings), the export and the sum of the
 * NDJSON meter events. They must agree exactly, and the balance must have fallen by their cost.
 */
describe.each(databaseTargets())('usage of live sessions on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  let projectId: string;
  let api: Reader;
  let wsUrl: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { CONCURRENT_SESSIONS_LIMIT: '50', SESSION_REAPER_INTERVAL_SECONDS: '0' } });
    ({ apiKey, projectId } = await t.newProject());
    api = reader(t, apiKey);
    wsUrl = `${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`;
  });
  afterAll(() => t?.close());

  /** Streams `seconds` of audio in 500 ms appends, never more than 1.5 s ahead of real time. */
  async function stream(c: SocketClient, seconds: number): Promise<void> {
    const started = Date.now();
    for (let sent = 0; sent < seconds * 1000; sent += 500) {
      const lead = sent - (Date.now() - started);
      if (lead > 1500) await sleep(lead - 1500);
      c.send({ type: 'session.input_audio.append', audio: tone(500).toString('base64') });
    }
  }

  it('agrees across the in-band usage, the session, the report, the export and the meter events', async () => {
    const before = await balanceMicros(t.dataSource, projectId);
    const inBand = new Map<string, { frames: number; seconds: number }>();

    // A live session long enough for two meter batches (one every 62 frames), closed by the client.
    const live = await SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${apiKey}` } });
    live.send(VOICECHAT_START);
    const liveId = (await live.waitFor('session.started')).session.id as string;
    await stream(live, 6);
    live.send({ type: 'session.close' });
    inBand.set(liveId, (await live.waitFor('session.closed', 15_000)).usage);

    // A transcription session opened with a client secret, with a final partial frame.
    const secret = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/live/client_secrets',
        headers: { authorization: `Bearer ${apiKey}` },
        payload: { session: { type: 'transcription' } },
      })
    ).json();
    const asr = await SocketClient.open(`${wsUrl}?token=${encodeURIComponent(secret.value)}`);
    asr.send({ type: 'session.start', session: { model: 'vendor-asr-streaming' } });
    await asr.waitFor('session.started');
    asr.send({ type: 'session.input_audio.append', audio: tone(1030).toString('base64') });
    asr.send({ type: 'session.close' });
    inBand.set(secret.session.id, (await asr.waitFor('session.closed')).usage);

    const ids = [...inBand.keys()];
    expect(inBand.get(liveId)!.frames).toBe(75);
    expect(inBand.get(secret.session.id)!.frames).toBe(13);
    const [day, byModel, doc, lines] = await Promise.all([
      api.get('/v1/usage').then((r) => r.json()),
      api.get('/v1/usage?group_by=model').then((r) => r.json()),
      api.get('/v1/usage/export').then((r) => r.json()),
      api.get('/v1/usage/normalized-meter-events').then((r) => parseNdjson(r.body)),
    ]);
    let totalCost = 0;
    for (const id of ids) {
      const { frames, seconds } = inBand.get(id)!;
      const session = (await api.get(`/v1/sessions/${id}`)).json();
      expect(session.usage).toMatchObject({ frames, seconds });
      const cost = usdMicros(session.usage.cost_usd);
      expect(cost).toBeGreaterThan(0);
      totalCost += cost;
      const exported = doc.data.find((s: { session_id: string }) => s.session_id === id);
      expect(exported).toMatchObject({ frames, seconds, cost_usd: session.usage.cost_usd, status: 'closed' });
      const mine = lines.filter((l) => l.session_id === id);
      expect(mine.reduce((n, l) => n + l.frames, 0)).toBe(frames);
      expect(new Set(mine.map((l) => l.meter_event_id)).size).toBe(mine.length);
    }
    expect(inBand.get(liveId)!.seconds).toBe(6);
    const framesOf = (buckets: { frames: number }[]) => buckets.reduce((n, b) => n + b.frames, 0);
    const costOf = (buckets: { cost_usd: string }[]) => buckets.reduce((n, b) => n + usdMicros(b.cost_usd), 0);
    const allFrames = [...inBand.values()].reduce((n, u) => n + u.frames, 0);
    for (const view of [day.data, byModel.data, doc.data]) {
      expect(framesOf(view)).toBe(allFrames);
      expect(costOf(view)).toBe(totalCost);
    }
    expect(byModel.data.map((b: { bucket: string; sessions: number }) => [b.bucket, b.sessions])).toEqual([
      ['vendor-asr-streaming', 1],
      ['vendor-voicechat', 1],
    ]);
    expect(await balanceMicros(t.dataSource, projectId)).toBe(before - totalCost);
  }, 60_000);
});

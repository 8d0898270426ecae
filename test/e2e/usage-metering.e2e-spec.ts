import fc from 'fast-check';
import { ModelCatalog } from '../../src/modules/models/model-catalog';
import { MeterService } from '../../src/modules/usage/meter.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import {
  ASR,
  balanceMicros,
  insertSession,
  parseNdjson,
  reader,
  sessionTotals,
  usdMicros,
  VOICECHAT,
} from './usage-fixtures';

const QUIET = { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', SESSION_REAPER_INTERVAL_SECONDS: '0' };

describe.each(databaseTargets())('metering on %s', (target) => {
  let t: TestApp;
  let meter: MeterService;
  let catalog: ModelCatalog;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { ...QUIET, STARTING_CREDIT_USD: '0.01' } });
    meter = t.app.get(MeterService);
    catalog = t.app.get(ModelCatalog);
  });
  afterAll(() => t?.close());

  describe('recordBatch', () => {
    it('counts a retried batch once, and charges session and project together', async () => {
      const { projectId } = await t.newProject();
      const id = await insertSession(t.dataSource, { projectId, status: 'active' });
      await meter.recordBatch(id, 1, 62);
      await meter.recordBatch(id, 1, 62);
      await meter.recordBatch(id, 2, 10);
      await meter.recordBatch(id, 1, 999); // a stale retry with other numbers: the first write won
      expect((await sessionTotals(t.dataSource, [id])).get(id)).toEqual({ frames: 72, cost: 72 * 80 });
      expect(await balanceMicros(t.dataSource, projectId)).toBe(10_000 - 72 * 80);
      const events = await t.dataSource.query(
        'SELECT id, seq, frames, cost_micros FROM meter_events WHERE session_id = $1 ORDER BY seq',
        [id],
      );
      expect(events).toEqual([
        { id: `mev_${id}_1`, seq: 1, frames: 62, cost_micros: '4960' },
        { id: `mev_${id}_2`, seq: 2, frames: 10, cost_micros: '800' },
      ]);
    });

    it('stays exact under concurrent duplicates and concurrent batches', async () => {
      const { projectId } = await t.newProject();
      const id = await insertSession(t.dataSource, { projectId, status: 'active', model: ASR });
      const calls = [];
      for (let seq = 1; seq <= 30; seq++)
        for (let copy = 0; copy < 3; copy++) calls.push(meter.recordBatch(id, seq, seq));
      await Promise.all(calls);
      const frames = (30 * 31) / 2;
      const cost = Array.from({ length: 30 }, (_, i) => catalog.costMicros(ASR, i + 1)).reduce((a, b) => a + b, 0);
      expect((await sessionTotals(t.dataSource, [id])).get(id)).toEqual({ frames, cost });
      expect(await balanceMicros(t.dataSource, projectId)).toBe(10_000 - cost);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM meter_events WHERE session_id = $1', [
        id,
      ]);
      expect(n).toBe(30);
    });

    it('refuses a batch for an unknown session and malformed numbers, writing nothing', async () => {
      await expect(meter.recordBatch('sess_nope', 1, 5)).rejects.toThrow(/unknown session/);
      await expect(meter.recordBatch('sess_nope', 0, 5)).rejects.toThrow(RangeError);
      await expect(meter.recordBatch('sess_nope', 1, -1)).rejects.toThrow(RangeError);
      await expect(meter.recordBatch('sess_nope', 1, 1.5)).rejects.toThrow(RangeError);
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM meter_events WHERE session_id = 'sess_nope'`,
      );
      expect(n).toBe(0);
    });
  });

  it('lets the credit fall below zero while a session runs, and refuses new sessions at or below zero', async () => {
    const { projectId, apiKey } = await t.newProject('credit');
    const auth = { authorization: `Bearer ${apiKey}` };
    const balance = async () =>
      (await t.app.inject({ method: 'GET', url: '/v1/project', headers: auth })).json().balance_usd;
    const newSecret = () =>
      t.app.inject({ method: 'POST', url: '/v1/live/client_secrets', headers: auth, payload: {} });
    const id = await insertSession(t.dataSource, { projectId, status: 'active' });

    expect(await balance()).toBe('0.010000');
    await meter.recordBatch(id, 1, 62);
    expect(await balance()).toBe('0.005040');
    await meter.recordBatch(id, 2, 62);
    expect(await balance()).toBe('0.000080');
    expect((await newSecret()).statusCode).toBe(200);
    await meter.recordBatch(id, 3, 1); // exactly zero
    expect(await balance()).toBe('0.000000');
    const refused = await newSecret();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_credit');
    await meter.recordBatch(id, 4, 62); // the running session is still metered and charged
    expect(await balance()).toBe('-0.004960');
    expect((await newSecret()).json().error.code).toBe('insufficient_credit');
    expect((await sessionTotals(t.dataSource, [id])).get(id)).toEqual({ frames: 187, cost: 187 * 80 });
  });

  it('has every view of usage agree, whatever the batches, retries and their interleaving (property)', async () => {
    const batch = fc.record({ frames: fc.integer({ min: 0, max: 400 }), retries: fc.integer({ min: 0, max: 2 }) });
    const session = fc.record({ model: fc.constantFrom(VOICECHAT, ASR), batches: fc.array(batch, { maxLength: 5 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(session, { minLength: 1, maxLength: 4 }), async (sessions) => {
        const { projectId, apiKey } = await t.newProject('property');
        const api = reader(t, apiKey);
        const ids: string[] = [];
        const expected = new Map<string, { frames: number; cost: number; model: string }>();
        for (const s of sessions) {
          const id = await insertSession(t.dataSource, { projectId, status: 'active', model: s.model });
          ids.push(id);
          expected.set(id, {
            model: s.model,
            frames: s.batches.reduce((n, b) => n + b.frames, 0),
            cost: s.batches.reduce((n, b) => n + catalog.costMicros(s.model, b.frames), 0),
          });
        }
        // Sessions run side by side; a session's batches go in seq order, each retry racing its original.
        await Promise.all(
          sessions.map(async (s, i) => {
            for (const [k, b] of s.batches.entries()) {
              await Promise.all(
                Array.from({ length: 1 + b.retries }, () => meter.recordBatch(ids[i], k + 1, b.frames)),
              );
            }
          }),
        );

        const totalFrames = [...expected.values()].reduce((n, e) => n + e.frames, 0);
        const totalCost = [...expected.values()].reduce((n, e) => n + e.cost, 0);
        const rows = await sessionTotals(t.dataSource, ids);
        const [day, byModel, doc, lines] = await Promise.all([
          api.get('/v1/usage').then((r) => r.json()),
          api.get('/v1/usage?group_by=model').then((r) => r.json()),
          api.get('/v1/usage/export').then((r) => r.json()),
          api.get('/v1/usage/normalized-meter-events').then((r) => parseNdjson(r.body)),
        ]);
        for (const id of ids) {
          const want = expected.get(id)!;
          expect(rows.get(id)).toEqual({ frames: want.frames, cost: want.cost });
          const rest = (await api.get(`/v1/sessions/${id}`)).json().usage;
          expect(rest).toEqual({
            frames: want.frames,
            seconds: (want.frames * 80) / 1000,
            cost_usd: expect.any(String),
            tokens: null, // kept for conversation sessions only
          });
          expect(usdMicros(rest.cost_usd)).toBe(want.cost);
          const exported = doc.data.find((d: { session_id: string }) => d.session_id === id);
          expect([exported.frames, usdMicros(exported.cost_usd), exported.seconds]).toEqual([
            want.frames,
            want.cost,
            (want.frames * 80) / 1000,
          ]);
          const mine = lines.filter((l) => l.session_id === id);
          expect(mine.reduce((n, l) => n + l.frames, 0)).toBe(want.frames);
          expect(mine.map((l) => l.meter_event_id).sort()).toEqual(
            Array.from({ length: sessions[ids.indexOf(id)].batches.length }, (_, k) => `mev_${id}_${k + 1}`).sort(),
          );
        }
        expect(doc.data).toHaveLength(ids.length);
        for (const view of [day.data, byModel.data]) {
          expect(view.reduce((n: number, b: { frames: number }) => n + b.frames, 0)).toBe(totalFrames);
          expect(view.reduce((n: number, b: { cost_usd: string }) => n + usdMicros(b.cost_usd), 0)).toBe(totalCost);
        }
        expect(byModel.data.reduce((n: number, b: { sessions: number }) => n + b.sessions, 0)).toBe(ids.length);
        expect(await balanceMicros(t.dataSource, projectId)).toBe(10_000 - totalCost);
      }),
      { numRuns: target === 'embedded' ? 12 : 25 },
    );
  });
});

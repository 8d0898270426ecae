import { MeterService } from '../../src/modules/usage/meter.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { ASR, insertSession, parseNdjson, reader, Reader, setRecordedAt, unix, utc, VOICECHAT } from './usage-fixtures';

/**
 * The three read views over a fixed history that straddles midnight (UTC), at every range edge.
 * Default prices: vendor-voicechat 0.06 USD/min = 80 micro-USD a frame, vendor-asr-streaming 8.
 */
describe.each(databaseTargets())('usage report, export and meter events on %s', (target) => {
  let t: TestApp;
  let api: Reader;
  let a: string; // live, created 23:59:50 on Jan 10, metered on both days
  let b: string; // transcription, Jan 11
  let c: string; // expired unused, Jan 11: a session without usage

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', SESSION_REAPER_INTERVAL_SECONDS: '0' },
    });
    const { projectId, apiKey } = await t.newProject('usage');
    api = reader(t, apiKey);
    const meter = t.app.get(MeterService);
    const ds = t.dataSource;

    a = await insertSession(ds, {
      projectId,
      createdAt: utc('2026-01-10T23:59:50'),
      endedAt: utc('2026-01-11T00:00:06'),
      metadata: { customer: 'acme', note: 'quote " and \\ kept' },
    });
    b = await insertSession(ds, {
      projectId,
      model: ASR,
      createdAt: utc('2026-01-11T10:00:00'),
      endedAt: utc('2026-01-11T10:00:09'),
    });
    c = await insertSession(ds, {
      projectId,
      status: 'expired',
      createdAt: utc('2026-01-11T12:00:00'),
      startedAt: null,
    });
    for (const [session, seq, frames, at] of [
      [a, 1, 62, '2026-01-10T23:59:58'],
      [a, 2, 62, '2026-01-11T00:00:03'],
      [a, 3, 10, '2026-01-11T00:00:05.123456'],
      [b, 1, 100, '2026-01-11T10:00:05'],
    ] as const) {
      // a is a conversation: its second batch bills a response's text (91 + 14 × 4 = 147 micro-USD).
      const tokens = session === a && seq === 2 ? { input: 91, output: 14 } : undefined;
      await meter.recordBatch(session, seq, frames, tokens);
      await setRecordedAt(ds, session, seq, utc(at));
    }
    // Another project's usage on the same day never shows.
    const other = await t.newProject('other');
    const foreign = await insertSession(ds, { projectId: other.projectId, createdAt: utc('2026-01-11T09:00:00') });
    await meter.recordBatch(foreign, 1, 500);
    await setRecordedAt(ds, foreign, 1, utc('2026-01-11T09:00:01'));
  });
  afterAll(() => t?.close());

  const at = (iso: string) => unix(utc(iso));
  const report = async (qs: string) => {
    const res = await api.get(`/v1/usage${qs}`);
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const exportDoc = async (qs: string) => {
    const res = await api.get(`/v1/usage/export${qs}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    return res.json();
  };
  const meterLines = async (qs: string) => {
    const res = await api.get(`/v1/usage/normalized-meter-events${qs}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    return parseNdjson(res.body);
  };

  describe('GET /v1/usage/export', () => {
    it('lists every session created or metered in the range with its usage, oldest first', async () => {
      const doc = await exportDoc('?from=0&to=1900000000');
      expect(doc).toEqual({
        object: 'usage.export',
        from: 0,
        to: 1900000000,
        data: [
          {
            session_id: a,
            type: 'live',
            model: VOICECHAT,
            status: 'closed',
            close_reason: 'close_requested',
            created_at: at('2026-01-10T23:59:50'),
            started_at: at('2026-01-10T23:59:50'),
            ended_at: at('2026-01-11T00:00:06'),
            frames: 134,
            seconds: 10.72,
            cost_usd: '0.010867',
            metadata: { customer: 'acme', note: 'quote " and \\ kept' },
            tokens: { input_tokens: 91, output_tokens: 14 },
          },
          expect.objectContaining({
            session_id: b,
            type: 'transcription',
            model: ASR,
            frames: 100,
            seconds: 8,
            cost_usd: '0.000800',
            tokens: null,
          }),
          {
            session_id: c,
            type: 'live',
            model: VOICECHAT,
            status: 'expired',
            close_reason: null,
            created_at: at('2026-01-11T12:00:00'),
            started_at: null,
            ended_at: null,
            frames: 0,
            seconds: 0,
            cost_usd: '0.000000',
            metadata: {},
            tokens: null,
          },
        ],
      });
    });

    it('carries a session created before the range with the usage metered inside it', async () => {
      const doc = await exportDoc(`?from=${at('2026-01-11T00:00:00')}`);
      expect(doc.data.map((s: { session_id: string; frames: number }) => [s.session_id, s.frames])).toEqual([
        [a, 72],
        [b, 100],
        [c, 0],
      ]);
      expect(doc.data[0].cost_usd).toBe('0.005907');
      // Tokens are split by range as frames are: billed in the batch recorded at 00:00:03.
      expect(doc.data[0].tokens).toEqual({ input_tokens: 91, output_tokens: 14 });
      const before = await exportDoc(`?to=${at('2026-01-11T00:00:00')}`);
      expect(before.data.map((s: { session_id: string; frames: number }) => [s.session_id, s.frames])).toEqual([
        [a, 62],
      ]);
      expect(before.data[0].tokens).toBeNull();
    });

    it('writes an empty range as an empty document', async () => {
      const t0 = at('2026-01-11T00:00:03');
      expect(await exportDoc(`?from=${t0}&to=${t0}`)).toEqual({ object: 'usage.export', from: t0, to: t0, data: [] });
    });
  });

  describe('GET /v1/usage/normalized-meter-events', () => {
    it('streams one event per line with exactly the four fields, in the order they were recorded', async () => {
      const lines = await meterLines('');
      expect(lines).toEqual([
        { schema: 'service.normalized-meter-event.v1', session_id: a, frames: 62, meter_event_id: `mev_${a}_1` },
        { schema: 'service.normalized-meter-event.v1', session_id: a, frames: 62, meter_event_id: `mev_${a}_2` },
        { schema: 'service.normalized-meter-event.v1', session_id: a, frames: 10, meter_event_id: `mev_${a}_3` },
        { schema: 'service.normalized-meter-event.v1', session_id: b, frames: 100, meter_event_id: `mev_${b}_1` },
      ]);
      for (const line of lines) expect(Object.keys(line)).toEqual(['schema', 'session_id', 'frames', 'meter_event_id']);
    });

    it('filters by the time of recording, from inclusive and to exclusive, and re-reads the same ids', async () => {
      const qs = `?from=${at('2026-01-11T00:00:03')}&to=${at('2026-01-11T00:00:05')}`;
      const first = await meterLines(qs);
      expect(first.map((l) => l.meter_event_id)).toEqual([`mev_${a}_2`]);
      expect(await meterLines(qs)).toEqual(first);
      expect(await meterLines(`?from=${at('2026-01-11T00:00:05')}&to=${at('2026-01-11T00:00:06')}`)).toHaveLength(1);
    });

    it('answers an empty range with an empty body', async () => {
      const res = await api.get(`/v1/usage/normalized-meter-events?from=5&to=5`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
    });
  });

  it('agrees across the report, the export and the meter events for any range', async () => {
    const edges = [
      '2026-01-10T00:00:00',
      '2026-01-10T23:59:58',
      '2026-01-11T00:00:00',
      '2026-01-11T00:00:04',
      '2026-01-11T10:00:05',
      '2026-01-12T00:00:00',
    ].map(at);
    for (const from of [0, ...edges]) {
      for (const to of edges.filter((e) => e >= from)) {
        const qs = `?from=${from}&to=${to}`;
        const [day, byModel, doc, lines] = await Promise.all([
          report(qs),
          report(`${qs}&group_by=model`),
          exportDoc(qs),
          meterLines(qs),
        ]);
        const sum = (xs: { frames: number }[]) => xs.reduce((n, x) => n + x.frames, 0);
        const cost = (xs: { cost_usd: string }[]) => xs.reduce((n, x) => n + Math.round(Number(x.cost_usd) * 1e6), 0);
        expect(sum(day.data)).toBe(sum(lines));
        expect(sum(byModel.data)).toBe(sum(lines));
        expect(sum(doc.data)).toBe(sum(lines));
        expect(cost(day.data)).toBe(cost(doc.data));
        expect(cost(byModel.data)).toBe(cost(doc.data));
        const tokens = (xs: { input_tokens: number }[]) => xs.reduce((n, x) => n + x.input_tokens, 0);
        const exported = doc.data.reduce(
          (n: number, x: { tokens: { input_tokens: number } | null }) => n + (x.tokens?.input_tokens ?? 0),
          0,
        );
        expect(tokens(day.data)).toBe(exported);
        expect(tokens(byModel.data)).toBe(exported);
        expect(byModel.data.reduce((n: number, x: { sessions: number }) => n + x.sessions, 0)).toBe(doc.data.length);
      }
    }
  });

  describe('validation and auth', () => {
    it('ignores unknown query parameters', async () => {
      expect((await report('?color=blue&group_by=model')).group_by).toBe('model');
    });

    it.each([
      ['/v1/usage?group_by=week', 'group_by', 'literal_error'],
      ['/v1/usage?group_by=', 'group_by', 'literal_error'],
      ['/v1/usage?from=abc', 'from', 'int_type'],
      ['/v1/usage?from=1.5', 'from', 'int_type'],
      ['/v1/usage?from=1e3', 'from', 'int_type'],
      ['/v1/usage?from=', 'from', 'int_type'],
      ['/v1/usage?from=1&from=2', 'from', 'int_type'],
      ['/v1/usage?from=-1', 'from', 'greater_than_equal'],
      ['/v1/usage?to=99999999999999', 'to', 'less_than_equal'],
      ['/v1/usage?from=10&to=9', 'to', 'value_error'],
      ['/v1/usage/export?to=x', 'to', 'int_type'],
      ['/v1/usage/export?from=10&to=9', 'to', 'value_error'],
      ['/v1/usage/normalized-meter-events?from=x', 'from', 'int_type'],
      ['/v1/usage/normalized-meter-events?from=10&to=9', 'to', 'value_error'],
    ])('%s → 422 at query.%s', async (path, param, type) => {
      const res = await api.get(path);
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ detail: [{ loc: ['query', param], msg: expect.any(String), type }] });
    });

    it.each(['/v1/usage', '/v1/usage/export', '/v1/usage/normalized-meter-events'])(
      '%s needs an API key',
      async (path) => {
        const res = await t.app.inject({ method: 'GET', url: path });
        expect(res.statusCode).toBe(401);
        expect(res.json().error.code).toBe('missing_api_key');
      },
    );
  });
});

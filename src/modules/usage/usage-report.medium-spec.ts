import { ENGINE_REGISTRY } from '../../engines';
import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { insertProject } from '../../../test/support/medium-fixtures';
import { ASR, insertSession, setRecordedAt, unix, utc, VOICECHAT } from '../../../test/e2e/usage-fixtures';
import type { UsageReportQueryDto } from './dto/usage-query.dto';
import { MeterService } from './meter.service';
import { UsageModule } from './usage.module';
import { UsageService } from './usage.service';

/** A query string as the validation pipe hands it to the service. */
const q = (qs: string): UsageReportQueryDto => {
  const params = new URLSearchParams(qs.replace(/^\?/, ''));
  const query: Record<string, string | number> = {};
  for (const [name, value] of params) query[name] = name === 'from' || name === 'to' ? Number(value) : value;
  return query as UsageReportQueryDto;
};

/**
 * The usage module's report on a real database: buckets by UTC day or model, ranges to the microsecond,
 * the project's usage only. (Moved from test/e2e/usage-report.e2e-spec.ts, which keeps the HTTP
 * surface: streamed export and meter events, validation, auth, and the agreement of all views.)
 */
describe.each(databaseTargets())('usage report on %s', (target) => {
  let t: MediumModule;
  let projectId: string;
  let a: string; // live, created 23:59:50 on Jan 10, metered on both days
  let b: string; // transcription, Jan 11

  beforeAll(async () => {
    t = await mediumModule(target, {
      imports: [UsageModule],
      // The catalog's capacity figures come from the engines, which metering never asks.
      globals: [{ provide: ENGINE_REGISTRY, useValue: {} }],
    });
    ({ projectId } = await insertProject(t.dataSource));
    const meter = t.get(MeterService);
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
    // Expired unused, Jan 11: a session without usage.
    await insertSession(ds, {
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
      await meter.recordBatch(session, seq, frames);
      await setRecordedAt(ds, session, seq, utc(at));
    }
    // Another project's usage on the same day never shows.
    const other = await insertProject(ds);
    const foreign = await insertSession(ds, { projectId: other.projectId, createdAt: utc('2026-01-11T09:00:00') });
    await meter.recordBatch(foreign, 1, 500);
    await setRecordedAt(ds, foreign, 1, utc('2026-01-11T09:00:01'));
  });
  afterAll(() => t?.close());

  const at = (iso: string) => unix(utc(iso));
  const report = (query: UsageReportQueryDto) => t.get(UsageService).report(projectId, query);

  describe('the report', () => {
    it('groups by UTC day by default, a session counting on each day it was created or metered', async () => {
      const body = await report(q(''));
      expect(body).toEqual({
        object: 'list',
        group_by: 'day',
        from: 0,
        to: expect.any(Number),
        data: [
          {
            bucket: '2026-01-10',
            sessions: 1,
            frames: 62,
            seconds: 4.96,
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: '0.004960',
          },
          {
            bucket: '2026-01-11',
            sessions: 3,
            frames: 172,
            seconds: 13.76,
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: '0.006560',
          },
        ],
      });
      expect(Math.abs(body.to - (Math.floor(Date.now() / 1000) + 1))).toBeLessThanOrEqual(2);
      // `to` defaults to "now + 1 s", which may tick between the two requests.
      expect({ ...(await report(q('?group_by=day'))), to: body.to }).toEqual(body);
    });

    it('groups by model', async () => {
      expect((await report(q('?group_by=model'))).data).toEqual([
        { bucket: ASR, sessions: 1, frames: 100, seconds: 8, input_tokens: 0, output_tokens: 0, cost_usd: '0.000800' },
        {
          bucket: VOICECHAT,
          sessions: 2,
          frames: 134,
          seconds: 10.72,
          input_tokens: 0,
          output_tokens: 0,
          cost_usd: '0.010720',
        },
      ]);
    });

    it('includes `from` and excludes `to`, to the microsecond', async () => {
      const day2 = (qs: string) => report(q(qs)).then((r) => r.data);
      expect(await day2(`?from=${at('2026-01-11T00:00:03')}&to=${at('2026-01-11T00:00:04')}`)).toEqual([
        {
          bucket: '2026-01-11',
          sessions: 1,
          frames: 62,
          seconds: 4.96,
          input_tokens: 0,
          output_tokens: 0,
          cost_usd: '0.004960',
        },
      ]);
      expect(await day2(`?from=${at('2026-01-11T00:00:04')}&to=${at('2026-01-11T00:00:05')}`)).toEqual([]);
      // 00:00:05.123456 is inside [05, 06) and outside [04, 05).
      expect(await day2(`?from=${at('2026-01-11T00:00:05')}&to=${at('2026-01-11T00:00:06')}`)).toEqual([
        {
          bucket: '2026-01-11',
          sessions: 1,
          frames: 10,
          seconds: 0.8,
          input_tokens: 0,
          output_tokens: 0,
          cost_usd: '0.000800',
        },
      ]);
      expect(await day2(`?to=${at('2026-01-11T00:00:03')}`)).toEqual([
        {
          bucket: '2026-01-10',
          sessions: 1,
          frames: 62,
          seconds: 4.96,
          input_tokens: 0,
          output_tokens: 0,
          cost_usd: '0.004960',
        },
      ]);
    });

    it('counts a session created in the range even before it is metered', async () => {
      const body = await report(q(`?group_by=model&from=${at('2026-01-11T10:00:00')}&to=${at('2026-01-11T10:00:05')}`));
      expect(body.data).toEqual([
        { bucket: ASR, sessions: 1, frames: 0, seconds: 0, input_tokens: 0, output_tokens: 0, cost_usd: '0.000000' },
      ]);
    });

    it('answers an empty range with no buckets and echoes it', async () => {
      const t0 = at('2026-01-11T00:00:03');
      expect(await report(q(`?from=${t0}&to=${t0}`))).toEqual({
        object: 'list',
        group_by: 'day',
        from: t0,
        to: t0,
        data: [],
      });
      expect((await report(q(`?from=${at('2030-01-01T00:00:00')}`))).data).toEqual([]);
      expect((await report(q('?from=0&to=1'))).data).toEqual([]);
    });
  });
});

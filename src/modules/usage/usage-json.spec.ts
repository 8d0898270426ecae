import { EXPORT_TAIL, exportHead, exportSessions, meterEventLines } from './usage-json';
import type { ExportSessionRow } from './usage.repository';

const row = (over: Partial<ExportSessionRow> = {}): ExportSessionRow => ({
  id: 'sess_a',
  type: 'live',
  model: 'vendor-voicechat',
  status: 'closed',
  close_reason: 'expired',
  created_at: '1768089590',
  started_at: '1768089591',
  ended_at: null,
  frames: '3',
  cost_micros: '240',
  input_tokens: null,
  output_tokens: null,
  metadata: '{"k": "v"}',
  at: '2026-01-10 23:59:50.5+00',
  ...over,
});

describe('meterEventLines', () => {
  it('writes exactly the four fields, one event per line', () => {
    const text = String(
      meterEventLines([
        ['mev_sess_a_1', 'sess_a', 62, '2026-01-01 00:00:00+00'],
        ['mev_sess_a_2', 'sess_a', 0, '2026-01-01 00:00:00.5+00'],
      ]),
    );
    expect(text).toBe(
      '{"schema":"service.normalized-meter-event.v1","session_id":"sess_a","frames":62,"meter_event_id":"mev_sess_a_1"}\n' +
        '{"schema":"service.normalized-meter-event.v1","session_id":"sess_a","frames":0,"meter_event_id":"mev_sess_a_2"}\n',
    );
    expect(meterEventLines([])).toHaveLength(0);
  });

  it('escapes ids that are not plain, and grows past its estimate', () => {
    const long = 'é'.repeat(500);
    expect(JSON.parse(String(meterEventLines([['x', long, 1, '']])))).toMatchObject({ session_id: long });
    const [line] = String(meterEventLines([['mev_"x"_1', 'a\nb', 1, '2026-01-01 00:00:00+00']])).split('\n');
    expect(JSON.parse(line)).toEqual({
      schema: 'service.normalized-meter-event.v1',
      session_id: 'a\nb',
      frames: 1,
      meter_event_id: 'mev_"x"_1',
    });
  });
});

describe('export document', () => {
  it('renders sessions in the contract order, comma-separated across pages', () => {
    const text =
      exportHead({ from: 5, to: 9 }) +
      exportSessions([row(), row({ id: 'sess_b', close_reason: null, started_at: null })], false) +
      exportSessions(
        [row({ id: 'sess_c', frames: '123456789', cost_micros: '-5', input_tokens: '9007', output_tokens: '0' })],
        true,
      ) +
      EXPORT_TAIL;
    const doc = JSON.parse(text);
    expect(doc.object).toBe('usage.export');
    expect([doc.from, doc.to]).toEqual([5, 9]);
    expect(Object.keys(doc.data[0])).toEqual([
      'session_id',
      'type',
      'model',
      'status',
      'close_reason',
      'created_at',
      'started_at',
      'ended_at',
      'frames',
      'seconds',
      'cost_usd',
      'metadata',
      'tokens',
    ]);
    expect(doc.data[0]).toMatchObject({
      created_at: 1768089590,
      started_at: 1768089591,
      ended_at: null,
      frames: 3,
      seconds: 0.24,
      cost_usd: '0.000240',
      metadata: { k: 'v' },
      tokens: null,
    });
    expect(doc.data[1]).toMatchObject({ session_id: 'sess_b', close_reason: null, started_at: null });
    expect(doc.data[2]).toMatchObject({
      frames: 123456789,
      seconds: 9876543.12,
      cost_usd: '-0.000005',
      tokens: { input_tokens: 9007, output_tokens: 0 },
    });
  });

  it('is valid JSON with no sessions, and when the first page is empty', () => {
    expect(JSON.parse(exportHead({ from: 0, to: 1 }) + exportSessions([], false) + EXPORT_TAIL).data).toEqual([]);
    expect(
      JSON.parse(
        exportHead({ from: 0, to: 1 }) + exportSessions([], false) + exportSessions([row()], false) + EXPORT_TAIL,
      ).data,
    ).toHaveLength(1);
  });
});

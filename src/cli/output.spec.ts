import { formatText } from './output';

describe('formatText', () => {
  it('aligns records, indents nested ones and shows *_at Unix times as UTC dates', () => {
    expect(formatText({ id: 'proj_1', balance_usd: '1.000000', created_at: 0, limits: { rpm: 600 } })).toBe(
      [
        'id           proj_1',
        'balance_usd  1.000000',
        'created_at   1970-01-01T00:00:00Z',
        'limits:',
        '  rpm  600',
      ].join('\n'),
    );
  });

  it('renders lists of records as tables, null as "-", and detail objects inline', () => {
    expect(
      formatText([
        { id: 'a', revoked_at: null, detail: { note: 'x' } },
        { id: 'bb', revoked_at: 60, detail: {} },
      ]),
    ).toBe(
      [
        'id  revoked_at            detail',
        'a   -                     {"note":"x"}',
        'bb  1970-01-01T00:01:00Z  {}',
      ].join('\n'),
    );
    expect(formatText([])).toBe('(none)');
  });
});

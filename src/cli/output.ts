/**
 * Text for people: `key  value` lines, nested objects indented, lists of records as tables, and
 * `*_at` Unix times shown as UTC dates. Scripts use --json instead, which prints the same data as is.
 */
export function formatText(value: unknown): string {
  if (Array.isArray(value)) return table(value);
  if (isRecord(value)) return lines(value, '').join('\n');
  return scalar('', value);
}

function lines(record: Record<string, unknown>, indent: string): string[] {
  const width = Math.max(0, ...Object.keys(record).map((k) => k.length));
  const out: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (isRecord(value) && key !== 'detail') {
      out.push(`${indent}${key}:`, ...lines(value, `${indent}  `));
    } else if (Array.isArray(value)) {
      out.push(
        `${indent}${key}:`,
        ...table(value)
          .split('\n')
          .map((l) => `${indent}  ${l}`),
      );
    } else {
      out.push(`${indent}${key.padEnd(width)}  ${scalar(key, value)}`);
    }
  }
  return out;
}

function table(rows: unknown[]): string {
  if (rows.length === 0) return '(none)';
  if (!rows.every(isRecord)) return rows.map((r) => scalar('', r)).join('\n');
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => scalar(c, r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const render = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [render(columns), ...cells.map(render)].join('\n');
}

function scalar(key: string, value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number' && (key.endsWith('_at') || key === 'at')) {
    return new Date(value * 1000).toISOString().replace('.000Z', 'Z');
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

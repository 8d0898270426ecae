/**
 * Hand-built JSON for the streamed responses, written page by page into one Buffer per page. Two
 * measured reasons (1M meter events, bench/export.bench.ts): an object and a JSON.stringify per line
 * cost CPU; and a page kept as a string (a rope of small strings) while it waits for the socket
 * survives young collections and is promoted, so the old space grew by ~100 MB between full
 * collections. As bytes, a page is one off-heap block, freed as soon as it is written.
 */
import { microsToUsd } from '../../platform/money';
import { METER_EVENT_SCHEMA } from './dto/normalized-meter-event.dto';
import type { MeterEventRow } from './meter-events.repository';
import type { ExportSessionRow } from './usage.repository';
import { framesToSeconds, type UsageRange } from './usage-range';

/** Appends strings as UTF-8 into one growing Buffer. */
class ByteWriter {
  private bytes: Buffer;
  private length = 0;

  constructor(estimate: number) {
    this.bytes = Buffer.allocUnsafe(Math.max(64, estimate));
  }

  write(text: string): void {
    const worst = text.length * 3; // UTF-8 bytes per UTF-16 code unit, at most
    if (this.bytes.length - this.length < worst) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + worst));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.length += this.bytes.write(text, this.length);
  }

  done(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

const METER_LINE_HEAD = `{"schema":${JSON.stringify(METER_EVENT_SCHEMA)},"session_id":`;
/** Our ids are base62 with `_`: such strings need no escaping, anything else goes through JSON.stringify. */
const PLAIN = /^[\w-]*$/;

const str = (value: string): string => (PLAIN.test(value) ? `"${value}"` : JSON.stringify(value));
const int = (value: string | null): string => (value === null ? 'null' : String(Number(value)));

/** A session's text tokens billed in the range: both null when none were. */
const tokens = (input: string | null, output: string | null): string =>
  input === null || output === null ? 'null' : `{"input_tokens":${Number(input)},"output_tokens":${Number(output)}}`;

/** NDJSON: one normalized meter event per line, exactly the four fields of the schema. */
export function meterEventLines(rows: readonly MeterEventRow[]): Buffer {
  const out = new ByteWriter(rows.length * 140);
  for (const [id, sessionId, frames] of rows) {
    out.write(`${METER_LINE_HEAD}${str(sessionId)},"frames":${frames},"meter_event_id":${str(id)}}\n`);
  }
  return out.done();
}

export const exportHead = (range: UsageRange): string =>
  `{"object":"usage.export","from":${range.from},"to":${range.to},"data":[`;

export const EXPORT_TAIL = ']}\n';

/** The export's sessions, comma-separated; `leadingComma` when sessions were written before them. */
export function exportSessions(rows: readonly ExportSessionRow[], leadingComma: boolean): Buffer {
  const out = new ByteWriter(rows.length * 400);
  rows.forEach((row, i) => {
    const frames = Number(row.frames);
    out.write(
      `${leadingComma || i > 0 ? ',' : ''}{"session_id":${str(row.id)},"type":${str(row.type)},"model":${str(row.model)},` +
        `"status":${str(row.status)},"close_reason":${row.close_reason === null ? 'null' : str(row.close_reason)},` +
        `"created_at":${int(row.created_at)},"started_at":${int(row.started_at)},"ended_at":${int(row.ended_at)},` +
        `"frames":${frames},"seconds":${framesToSeconds(frames)},"cost_usd":"${microsToUsd(Number(row.cost_micros))}",` +
        `"metadata":${row.metadata},"tokens":${tokens(row.input_tokens, row.output_tokens)}}`,
    );
  });
  return out.done();
}

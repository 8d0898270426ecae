import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { microsToUsd } from '../../platform/money';
import type { UsageRangeQueryDto, UsageReportQueryDto } from './dto/usage-query.dto';
import type { UsageListDto } from './dto/usage-report.dto';
import { MeterEventKey, MeterEventsRepository } from './meter-events.repository';
import { byteStream, prefetchingPages, RenderedPage } from './paged-stream';
import { EXPORT_TAIL, exportHead, exportSessions, meterEventLines } from './usage-json';
import { framesToSeconds, resolveRange } from './usage-range';
import { ExportSessionRow, SessionKey, UsageRepository } from './usage.repository';

/** Rows per query. A page is rendered as one chunk: about 1.2 MB of NDJSON, or of export. */
export const METER_EVENTS_PAGE = 10_000;
export const EXPORT_PAGE = 2_000;

/**
 * The read side of usage. Everything follows one rule: usage belongs where its meter event was
 * recorded (recorded_at), and a session belongs to a range if it was created or metered in it.
 * So the report, the export and the meter events agree for any range, and equal the sessions'
 * own totals for a range that covers them.
 */
@Injectable()
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly events: MeterEventsRepository,
  ) {}

  async report(projectId: string, query: UsageReportQueryDto): Promise<UsageListDto> {
    const range = resolveRange(query);
    const groupBy = query.group_by ?? 'day';
    const rows = await this.usage.report(projectId, range, groupBy);
    return {
      object: 'list',
      group_by: groupBy,
      from: range.from,
      to: range.to,
      data: rows.map((r) => ({
        bucket: r.bucket,
        sessions: r.sessions,
        frames: r.frames,
        seconds: framesToSeconds(r.frames),
        input_tokens: r.inputTokens,
        output_tokens: r.outputTokens,
        cost_usd: microsToUsd(r.costMicros),
      })),
    };
  }

  /**
   * NDJSON of the project's meter events in the range, in (recorded_at, id) order. The first page is
   * read before anything is sent, so a failing database still answers with a proper error; a failure
   * after that aborts the response (the chunked body never ends cleanly).
   */
  async meterEvents(projectId: string, query: UsageRangeQueryDto): Promise<Readable> {
    const range = resolveRange(query);
    const fetch = async (after: MeterEventKey | null): Promise<RenderedPage<MeterEventKey>> => {
      const page = await this.events.page(projectId, range, after, METER_EVENTS_PAGE);
      return { bytes: meterEventLines(page.rows), next: page.next };
    };
    const first = await fetch(null);
    return byteStream(prefetchingPages(first, fetch));
  }

  /** The export document, written as it is read: the sessions carried into the range, then those created in it. */
  async export(projectId: string, query: UsageRangeQueryDto): Promise<Readable> {
    const range = resolveRange(query);
    const carried = range.from > 0 && range.to > range.from ? await this.usage.carriedSessionIds(projectId, range) : [];
    let written = false;
    const render = (rows: readonly ExportSessionRow[]): Buffer => {
      const bytes = exportSessions(rows, written);
      written ||= rows.length > 0;
      return bytes;
    };

    // Keys: a slice index into `carried` first, then keyset positions among the sessions created in the range.
    type Key = { carriedFrom: number } | { after: SessionKey | null };
    const fetch = async (key: Key): Promise<RenderedPage<Key>> => {
      if ('carriedFrom' in key) {
        const ids = carried.slice(key.carriedFrom, key.carriedFrom + EXPORT_PAGE);
        const rows = await this.usage.exportSessionsByIds(projectId, range, ids);
        const end = key.carriedFrom + EXPORT_PAGE;
        return { bytes: render(rows), next: end < carried.length ? { carriedFrom: end } : { after: null } };
      }
      const rows = await this.usage.exportSessionsCreated(projectId, range, key.after, EXPORT_PAGE);
      const last = rows.length === EXPORT_PAGE ? rows[rows.length - 1] : undefined;
      return { bytes: render(rows), next: last ? { after: { at: last.at, id: last.id } } : null };
    };
    const firstKey: Key = carried.length > 0 ? { carriedFrom: 0 } : { after: null };
    const first = await fetch(firstKey);
    async function* document(): AsyncGenerator<Buffer | string> {
      yield exportHead(range);
      yield* prefetchingPages(first, fetch);
      yield EXPORT_TAIL;
    }
    return byteStream(document());
  }
}

import { get as httpGet, IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MeterEventsRepository } from '../../src/modules/usage/meter-events.repository';
import { METER_EVENTS_PAGE } from '../../src/modules/usage/usage.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const EVENTS = 200_000;
const PER_SESSION = 200;
/** A live stream's next chunk comes within this, or the read fails at once, saying why (not at the test's timeout). */
const CHUNK_WAIT_MS = 15_000;
const PAGES = Math.ceil(EVENTS / METER_EVENTS_PAGE);
const LINE =
  /^\{"schema":"service\.normalized-meter-event\.v1","session_id":"sess_bulk\d{6}","frames":62,"meter_event_id":"mev_sess_bulk\d{6}_\d+"\}$/;

/** What is left after a few full collections, with time between them for sockets to let go. */
async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(100);
  }
  gc();
  return usedBytes();
}

/** Heap plus Buffers: what a server that ignored back-pressure would fill. */
const usedBytes = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The NDJSON stream over real HTTP with 200,000 events: complete and ordered for a fast reader,
 * bounded memory and a stalled database reader while the client does not read, and no further
 * query once the client hangs up. Server and client share this process, so the memory figures
 * include both; the client keeps only counters.
 */
describe.each(databaseTargets())('streaming meter events on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  /** Page queries issued; counted by hand, because a jest spy would keep every page it returned. */
  let pages = 0;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { SESSION_REAPER_INTERVAL_SECONDS: '0' } });
    let projectId: string;
    ({ projectId, apiKey } = await t.newProject('bulk'));
    await t.dataSource.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, created_at, metadata, audio, frames, cost_micros)
       SELECT 'sess_bulk' || lpad(g::text, 6, '0'), $1, 'live', 'vendor-voicechat', 'closed', 'default', 'local',
              timestamptz '2026-02-01 00:00:00+00' + g * interval '1 second', '{}', '{}', $2 * 62, $2 * 4960
       FROM generate_series(0, $3 - 1) g`,
      [projectId, PER_SESSION, EVENTS / PER_SESSION],
    );
    await t.dataSource.query(
      `INSERT INTO meter_events (id, session_id, project_id, seq, frames, cost_micros, recorded_at)
       SELECT 'mev_sess_bulk' || lpad((g / $2)::text, 6, '0') || '_' || (g % $2 + 1), 'sess_bulk' || lpad((g / $2)::text, 6, '0'),
              $1, g % $2 + 1, 62, 4960, timestamptz '2026-02-01 00:00:00+00' + g * interval '1 millisecond'
       FROM generate_series(0, $3 - 1) g`,
      [projectId, PER_SESSION, EVENTS],
    );
    const repository = t.app.get(MeterEventsRepository);
    const page = repository.page.bind(repository);
    repository.page = (...args) => {
      pages++;
      return page(...args);
    };
  }, 120_000);
  afterAll(() => t?.close());
  beforeEach(() => (pages = 0));

  /**
   * Each stream on a connection of its own: a kept-alive one carries the receive buffer that the fast
   * reader before it grew, which the kernel may autotune up to tcp_rmem's maximum (32 MB here), and
   * then the socket alone takes most of the payload before the server sees back-pressure.
   */
  const open = async (): Promise<IncomingMessage> => {
    const url = `${t.baseUrl}/v1/usage/normalized-meter-events`;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      httpGet(url, { agent: false, headers: { authorization: `Bearer ${apiKey}` } }, resolve).on('error', reject);
    });
    if (res.statusCode === 200) return res;
    let body = '';
    for await (const chunk of res) body += String(chunk);
    throw new Error(`status ${res.statusCode}: ${body}\n${databaseLines()}`);
  };

  /** What the app said about its database: why a stream was refused or cut. */
  const databaseLines = () =>
    t.logs.filter((line) => line.includes(`"context":"Database"`)).join('') ||
    '(the app logged nothing about its database)';

  /** The response's chunks, each within CHUNK_WAIT_MS; a stream that stalls or dies fails here with the app's account. */
  async function* chunksOf(res: IncomingMessage): AsyncGenerator<Buffer> {
    const chunks = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no data for ${CHUNK_WAIT_MS} ms`)), CHUNK_WAIT_MS);
      });
      let next: IteratorResult<Buffer>;
      try {
        next = await Promise.race([chunks.next(), stalled]);
      } catch (error) {
        res.destroy(); // or the app's close would wait on this response for ever
        throw new Error(`the stream failed (${(error as Error).message})\n${databaseLines()}`);
      } finally {
        clearTimeout(timer);
      }
      if (next.done) return;
      yield next.value;
    }
  }

  /** The page count once no page has been asked for during a whole second (at most 20 s). */
  async function settledPageCount(): Promise<number> {
    let seen = -1;
    for (let waited = 0; pages !== seen && waited < 20; waited++) {
      seen = pages;
      await sleep(1000);
    }
    expect(pages).toBe(seen);
    return seen;
  }

  /** Counts lines and checks each as it passes, holding nothing but the last partial line. */
  function lineCounter() {
    let partial = '';
    let count = 0;
    let lastSeq = -1;
    return {
      push(chunk: Buffer) {
        const text = partial + chunk.toString('utf8');
        const lines = text.split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          if (!LINE.test(line)) throw new Error(`bad line ${line}`);
          // Ordered by recorded_at, which the seed made the event number: (session, seq) rises.
          const [, session, seq] = /bulk(\d{6})_(\d+)"\}$/.exec(line)!;
          const n = Number(session) * PER_SESSION + Number(seq) - 1;
          if (n !== lastSeq + 1) throw new Error(`event ${n} after ${lastSeq}`);
          lastSeq = n;
          count++;
        }
      },
      get count() {
        return count;
      },
      get rest() {
        return partial;
      },
    };
  }

  it('streams every event, complete and in order, page by page', async () => {
    const res = await open();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(res.headers['x-request-id']).toBeDefined();
    const lines = lineCounter();
    for await (const chunk of chunksOf(res)) lines.push(chunk);
    expect(lines.count).toBe(EVENTS);
    expect(lines.rest).toBe('');
    expect(pages).toBe(PAGES + 1); // the last full page is followed by an empty one
  }, 60_000);

  it('stops reading the database while the client does not read, and keeps memory bounded', async () => {
    const baseline = await settledHeap();
    // Live memory, not garbage: collect, then measure, once a second while the stream runs.
    let peak = 0;
    const sampler = setInterval(() => {
      gc();
      peak = Math.max(peak, usedBytes() - baseline);
    }, 1000);
    let res: IncomingMessage | undefined;
    try {
      res = await open();
      const lines = lineCounter();
      const reading = chunksOf(res);
      lines.push((await reading.next()).value as Buffer);
      const stalledAt = await settledPageCount();
      gc();
      const whilePaused = usedBytes() - baseline;
      // Waiting for the socket to drain. A fresh loopback connection takes ~4 MB here (the send buffer's
      // maximum; the paused receiver's stays at 128 KB) before the server sees back-pressure; then one
      // page queued and one prefetched, and no more: 6 pages measured, with or without load beside it.
      expect(stalledAt).toBeLessThanOrEqual(PAGES / 2);
      // A slow reader: a pause after every 256 KB, until the end.
      let sincePause = 0;
      for await (const chunk of reading) {
        lines.push(chunk);
        sincePause += chunk.length;
        if (sincePause >= 256 * 1024) {
          sincePause = 0;
          await sleep(10);
        }
      }
      expect(lines.count).toBe(EVENTS);
      const payloadMb = (EVENTS * 120) / 2 ** 20;
      console.log(
        `${target}: paused after ${stalledAt}/${PAGES} pages; growth while paused ${(whilePaused / 2 ** 20).toFixed(1)} MB, peak ${(peak / 2 ** 20).toFixed(1)} MB, payload ~${payloadMb.toFixed(0)} MB`,
      );
      // Server and client together; a server that ignored back-pressure would hold the whole ~23 MB
      // while paused (and would not have stalled above). The peak while reading counts the page in
      // flight as rows and as lines, whenever the sampler lands: 6 MB alone, 17 MB measured with the
      // whole suite running beside it.
      expect(whilePaused).toBeLessThan(16 * 2 ** 20);
      expect(peak).toBeLessThan(32 * 2 ** 20);
    } finally {
      clearInterval(sampler);
      res?.destroy(); // a failed assertion must not leave the stream running into the next test
    }
  }, 180_000);

  it('stops querying when the client hangs up', async () => {
    const res = await open();
    await chunksOf(res).next();
    res.destroy();
    // What the socket buffers took before the hang-up, plus one page prefetched: far from all of them.
    expect(await settledPageCount()).toBeLessThanOrEqual(PAGES / 2);
    // The service is unharmed: a new reader gets the whole stream.
    const again = await open();
    let bytes = 0;
    for await (const chunk of chunksOf(again)) bytes += chunk.length;
    expect(bytes).toBeGreaterThan(EVENTS * 100);
  }, 60_000);
});

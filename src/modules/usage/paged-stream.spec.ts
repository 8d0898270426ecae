import { byteStream, prefetchingPages, RenderedPage } from './paged-stream';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};
const page = <K>(text: string, next: K | null): RenderedPage<K> => ({ bytes: Buffer.from(text), next });

describe('prefetchingPages', () => {
  it('yields every page in order, asking for the next one while the current one is consumed', async () => {
    const asked: number[] = [];
    const fetch = async (n: number) => {
      asked.push(n);
      return page(`p${n}`, n < 3 ? n + 1 : null);
    };
    const pages = prefetchingPages(page('p0', 1), fetch);
    expect(String((await pages.next()).value)).toBe('p0');
    expect(asked).toEqual([1]); // prefetched before p0 was handed out
    const rest: string[] = [];
    for await (const bytes of pages) rest.push(String(bytes));
    expect(rest).toEqual(['p1', 'p2', 'p3']);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('skips empty pages and ends on a null key', async () => {
    const all: Buffer[] = [];
    for await (const bytes of prefetchingPages(page('', null), async () => page('never', null))) all.push(bytes);
    expect(all).toEqual([]);
  });

  it('stops asking once the reader leaves, and swallows the failure of a page nobody will read', async () => {
    const pending = deferred<RenderedPage<number>>();
    const fetch = jest.fn(() => pending.promise);
    const pages = prefetchingPages(page('p0', 1), fetch);
    await pages.next();
    await pages.return(undefined);
    pending.reject(new Error('connection reset'));
    await new Promise((r) => setImmediate(r));
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('fails the stream when a page fails while it is being read', async () => {
    const pages = prefetchingPages(page('p0', 1), () => Promise.reject(new Error('boom')));
    await pages.next();
    await expect(pages.next()).rejects.toThrow('boom');
  });
});

describe('byteStream', () => {
  it('pulls the next chunk only when the reader wants more, and ends the source when destroyed', async () => {
    let pulled = 0;
    let finished = false;
    async function* chunks() {
      try {
        for (;;) {
          pulled++;
          yield Buffer.alloc(100_000, 'x');
        }
      } finally {
        finished = true;
      }
    }
    const stream = byteStream(chunks());
    await new Promise((r) => stream.once('readable', r));
    await new Promise((r) => setTimeout(r, 20));
    expect(pulled).toBeLessThanOrEqual(2); // one chunk over the high-water mark stops the pulling
    stream.destroy();
    await new Promise((r) => stream.once('close', r));
    expect(finished).toBe(true);
  });
});

import { Readable } from 'node:stream';

/** What a page source returns: a rendered chunk and where to continue (null: this was the last page). */
export interface RenderedPage<K> {
  bytes: Buffer;
  next: K | null;
}

/**
 * Pages as chunks of bytes, each page's query sent while the previous page is being written: the
 * database and the socket work at the same time, and at most one page waits ahead of the reader.
 */
export async function* prefetchingPages<K>(
  first: RenderedPage<K>,
  fetch: (after: K) => Promise<RenderedPage<K>>,
): AsyncGenerator<Buffer> {
  let page = first;
  let pending: Promise<RenderedPage<K>> | null = null;
  try {
    for (;;) {
      pending = page.next === null ? null : fetch(page.next);
      if (page.bytes.length > 0) yield page.bytes;
      if (!pending) return;
      page = await pending;
      pending = null;
    }
  } finally {
    // The reader left while a page was on its way: nothing will read it, nor its failure.
    pending?.catch(() => undefined);
  }
}

/**
 * A byte stream over chunks that pulls the next chunk only when the consumer has taken the previous
 * one (the response socket drained). Destroying it (the client went away) ends the generator at its
 * next step, so no further page is queried.
 */
export function byteStream(chunks: AsyncIterable<Buffer | string>): Readable {
  return Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 });
}

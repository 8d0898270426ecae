/**
 * Uploads to disk as they arrive, never whole in memory: a raw audio body (Deepgram) or the `file`
 * part of a multipart form (OpenAI; busboy parses it, with limits on every part). Past `limitBytes`
 * the request is refused 413 at once, by its Content-Length when it declares one.
 */
import busboy from 'busboy';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { AppError } from '../../../platform/errors/app-error';
import type { StreamedBody } from '../../../platform/http/request-body';
import { SNIFF_BYTES } from '../decoding/audio-format';

export interface SavedUpload {
  path: string;
  bytes: number;
  /** The first bytes, for the container's detection. */
  head: Buffer;
}

export interface MultipartUpload {
  file: SavedUpload | null;
  /** Every text field by name, repeated ones in order (`timestamp_granularities[]`). */
  fields: Map<string, string[]>;
}

const MAX_FIELDS = 32;
const MAX_FIELD_BYTES = 64 * 1024; // a prompt is a few hundred words

export function tooLarge(limitBytes: number): AppError {
  return new AppError('payload_too_large', `The upload is larger than ${limitBytes / 1_000_000} MB`, {
    param: 'file',
  });
}

export async function saveRawUpload(body: StreamedBody, dir: string, limitBytes: number): Promise<SavedUpload> {
  if (body.declaredLength !== null && body.declaredLength > limitBytes) throw tooLarge(limitBytes);
  const path = join(dir, 'upload');
  const sink = new FileSink(path, limitBytes);
  // Read to the end even past the limit (discarded): destroying the request would cut the connection
  // before the 413 is answered.
  for await (const chunk of body.stream as AsyncIterable<Buffer>) await sink.write(chunk);
  return sink.finish();
}

export async function readMultipartUpload(
  body: StreamedBody,
  dir: string,
  limitBytes: number,
): Promise<MultipartUpload> {
  // The form's own fields are small; the limit is the file's, plus room for them.
  if (body.declaredLength !== null && body.declaredLength > limitBytes + MAX_FIELDS * 1024) throw tooLarge(limitBytes);
  const fields = new Map<string, string[]>();
  let file: SavedUpload | null = null;
  const writes: Promise<void>[] = [];
  const failures: AppError[] = [];
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': body.contentType },
      limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1, fileSize: limitBytes },
    });
  } catch {
    throw new AppError('invalid_request', 'The multipart body has no boundary', { param: 'body' });
  }
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) {
      failures.push(new AppError('invalid_parameter', `${name} is too long`, { param: name }));
      return;
    }
    fields.set(name, [...(fields.get(name) ?? []), value]);
  });
  parser.on('file', (name, stream) => {
    if (name !== 'file' || file !== null) {
      stream.resume();
      return;
    }
    const sink = new FileSink(join(dir, 'upload'), limitBytes);
    const done = (async () => {
      for await (const chunk of stream as AsyncIterable<Buffer>) await sink.write(chunk);
      // busboy stops the file at its fileSize limit and reads on: the last byte over tells.
      file = await sink.finish((stream as unknown as { truncated?: boolean }).truncated === true);
    })();
    writes.push(done);
  });
  const limit = (what: string) => () =>
    failures.push(new AppError('invalid_request', `The form has too many ${what}`, { param: 'body' }));
  parser.on('filesLimit', limit('files (one `file` is read)'));
  parser.on('fieldsLimit', limit('fields'));
  parser.on('partsLimit', limit('parts'));
  const source = body.stream as Readable;
  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('close', resolve);
      parser.on('error', reject);
      source.on('error', reject);
      source.pipe(parser);
    });
    await Promise.all(writes);
  } catch (error) {
    source.unpipe(parser);
    source.resume(); // read the rest and drop it, so the answer reaches the client
    await Promise.allSettled(writes);
    if (error instanceof AppError) throw error;
    throw new AppError('invalid_request', 'The multipart body could not be read (malformed or cut short)', {
      param: 'body',
    });
  }
  if (failures.length > 0) throw failures[0];
  return { file, fields };
}

/** Writes an upload to a file, keeps its first bytes, and drops what comes past the limit. */
class FileSink {
  private readonly out: WriteStream;
  private bytes = 0;
  private head = Buffer.alloc(0);

  constructor(
    private readonly path: string,
    private readonly limit: number,
  ) {
    this.out = createWriteStream(path);
  }

  async write(chunk: Buffer): Promise<void> {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return;
    if (this.head.length < SNIFF_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, SNIFF_BYTES)]);
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  async finish(truncated = false): Promise<SavedUpload> {
    this.out.end();
    await finished(this.out);
    if (truncated || this.bytes > this.limit) throw tooLarge(this.limit);
    return { path: this.path, bytes: this.bytes, head: this.head };
  }
}

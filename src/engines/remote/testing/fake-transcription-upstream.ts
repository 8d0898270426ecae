/**
 * A fake OpenAI-compatible transcription server (`POST /v1/audio/transcriptions`, multipart read with
 * busboy as speaches or vLLM read it) for protocol tests: it records each upload and answers as the
 * test says; a GET (a pool's health probe) gets 200.
 */
import busboy from 'busboy';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedUpload {
  headers: IncomingHttpHeaders;
  /** The form's fields in the order sent, repeated names included. */
  fields: Array<[string, string]>;
  file: { name: string; type: string; bytes: Buffer } | null;
}

export interface FakeTranscriptionUpstream {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  readonly port: number;
  readonly received: ReceivedUpload[];
  /** How the next uploads are answered (after they are recorded); not answering at all is allowed. */
  answer: (res: ServerResponse, upload: ReceivedUpload) => void;
  close(): Promise<void>;
}

export async function startFakeTranscriptionUpstream(): Promise<FakeTranscriptionUpstream> {
  const upstream: Omit<FakeTranscriptionUpstream, 'baseUrl' | 'port' | 'close'> = {
    received: [],
    answer: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":""}'),
  };
  const server = createServer((req, res) => {
    if (req.method === 'GET') return void res.writeHead(200).end('ok');
    const got: ReceivedUpload = { headers: req.headers, fields: [], file: null };
    const form = busboy({ headers: req.headers });
    form.on('field', (name, value) => got.fields.push([name, value]));
    form.on('file', (_name, stream, info) => {
      const parts: Buffer[] = [];
      stream.on('data', (part: Buffer) => parts.push(part));
      stream.on(
        'end',
        () => (got.file = { name: info.filename ?? '', type: info.mimeType, bytes: Buffer.concat(parts) }),
      );
    });
    form.on('close', () => {
      upstream.received.push(got);
      upstream.answer(res, got);
    });
    req.pipe(form);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(upstream, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

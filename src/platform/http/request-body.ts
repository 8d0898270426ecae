import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error';
import { RequestValidationError } from '../errors/validation-error';
import { findTextProblem, MAX_JSON_DEPTH } from '../validation/text-safety';

/** Fastify's default, stated here because docs/api.md promises it. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A body that could not be read (bad JSON, too deep, a media type this API does not take). Parsing
 * runs before authentication, so the parser does not refuse the request itself: it hands this on as
 * the body, the guard checks the key as for any request, and the validation pipe raises `error` only
 * then. A bad key with a malformed body is a 401, like a bad key with any other body.
 */
export class UnreadableBody {
  constructor(readonly error: Error) {}
}

/**
 * Route config (`@RouteConfig(STREAMED_BODY)`) of the routes that read an audio upload themselves: its
 * body is handed over unread as the request's stream (`StreamedBody`), and the route enforces its own
 * limit. Every other route keeps the 1 MiB limit and refuses these media types.
 */
export const STREAMED_BODY = { streamedBody: true } as const;

/** An upload handed to its route unread: multipart/form-data, audio/*, video/*, application/octet-stream. */
export class StreamedBody {
  constructor(
    readonly stream: NodeJS.ReadableStream,
    readonly contentType: string,
    /** The declared length, when the client sent one. */
    readonly declaredLength: number | null,
  ) {}
}

const STREAMED_TYPES = ['multipart/form-data', 'application/octet-stream', /^audio\//, /^video\//];

/** JSON bodies through our parser (malformed JSON is a 422 `json_invalid`), anything else refused. */
export function installBodyParsers(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      return done(
        null,
        unreadable(new RequestValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }])),
      );
    }
    // Fastify's parser answers through the callback; its declared promise return is never used.
    void parseJson(request, body as string, (error, value) => {
      if (error) {
        const issue = { loc: ['body'], msg: `JSON decode error: ${error.message}`, type: 'json_invalid' };
        return done(null, unreadable(new RequestValidationError([issue])));
      }
      if (findTextProblem(value)?.kind === 'too_deep') {
        const message = `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`;
        return done(null, unreadable(new AppError('invalid_request', message, { param: 'body' })));
      }
      done(null, value);
    });
  });
  // WebRTC offers (POST /v1/realtime/calls, /v1/realtime): a raw SDP, or the openai SDK's multipart form
  // read whole within the ordinary limit. Only there: any other route refuses SDP as any other media type.
  const calls = (url: string): boolean => /^\/v1\/realtime(\/calls)?(\?|$)/.test(url);
  fastify.addContentTypeParser('application/sdp', { parseAs: 'string' }, (request, body, done) =>
    done(
      null,
      calls(request.url)
        ? body
        : unreadable(new AppError('unsupported_media_type', 'Send the body as application/json')),
    ),
  );
  for (const type of STREAMED_TYPES) {
    fastify.addContentTypeParser(type, (request, payload, done) => {
      if (type === 'multipart/form-data' && calls(request.url)) return readWhole(payload, done);
      const config = request.routeOptions.config as { streamedBody?: boolean } | undefined;
      if (config?.streamedBody !== true) {
        return done(null, unreadable(new AppError('unsupported_media_type', 'Send the body as application/json')));
      }
      const length = Number(request.headers['content-length']);
      const declared = request.headers['content-length'] !== undefined && Number.isFinite(length) ? length : null;
      done(null, new StreamedBody(payload, request.headers['content-type'] ?? '', declared));
    });
  }
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) =>
    done(null, unreadable(new AppError('unsupported_media_type', 'Send the body as application/json'))),
  );
}

const unreadable = (error: Error) => new UnreadableBody(error);

/** A small body read into one buffer, as Fastify's own parsers do, refused 413 past MAX_BODY_BYTES. */
function readWhole(payload: NodeJS.ReadableStream, done: (error: Error | null, body?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (error: Error | null, body?: unknown): void => {
    if (settled) return;
    settled = true;
    done(error, body);
  };
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) settle(new AppError('payload_too_large', `The body is over ${MAX_BODY_BYTES} bytes`));
    else if (!settled) chunks.push(chunk);
  });
  payload.on('end', () => settle(null, Buffer.concat(chunks)));
  payload.on('error', (error: Error) => settle(error));
}

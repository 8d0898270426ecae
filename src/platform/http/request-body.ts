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
  // WebRTC offers (POST /v1/realtime/calls, /v1/realtime): a raw SDP, or the openai SDK's multipart form.
  // Only there: any other route is refused as for any other media type.
  const calls = (url: string): boolean => /^\/v1\/realtime(\/calls)?(\?|$)/.test(url);
  fastify.addContentTypeParser('application/sdp', { parseAs: 'string' }, (request, body, done) =>
    done(
      null,
      calls(request.url)
        ? body
        : unreadable(new AppError('unsupported_media_type', 'Send the body as application/json')),
    ),
  );
  fastify.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) =>
    done(
      null,
      calls(request.url)
        ? body
        : unreadable(new AppError('unsupported_media_type', 'Send the body as application/json')),
    ),
  );
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) =>
    done(null, unreadable(new AppError('unsupported_media_type', 'Send the body as application/json'))),
  );
}

const unreadable = (error: Error) => new UnreadableBody(error);

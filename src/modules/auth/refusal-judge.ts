import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RefusalJudge } from '../../platform/errors/all-exceptions.filter';
import { extractHeaderCredential } from './credentials';
import { FailedAuthThrottle } from './failed-auth.throttle';
import type { PresentedApiKey } from './principal';

/** What the error filter asks before it answers a failed request. */
@Injectable()
export class AuthRefusalJudge implements RefusalJudge {
  constructor(private readonly throttle: FailedAuthThrottle) {}

  async judge(exception: unknown, request: FastifyRequest & { presentedKey?: PresentedApiKey }): Promise<unknown> {
    let answer = exception;
    // On a route that checks its key in its own statement, a request that failed before that
    // statement (a 422, say) answers for the key first, as every other route does: a bad key with
    // its refusal, a good one with its rate-limit headers and then this error.
    if (request.presentedKey) {
      try {
        await request.presentedKey.check();
      } catch (refusal) {
        answer = refusal;
      }
    }
    // An authentication refusal first counts against the client's address (and may become a 429).
    const found = extractHeaderCredential(request.headers);
    return this.throttle.judge(answer, request.ip, found.kind === 'found' ? found.credential.value : undefined);
  }
}

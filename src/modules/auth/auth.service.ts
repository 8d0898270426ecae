import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { sha256Hex } from '../../platform/ids';
import { FailedAuthThrottle } from './failed-auth.throttle';
import { KeyChecksRepository, type KeyCheck } from './key-checks.repository';
import { extractHeaderCredential, isApiKey, isClientSecret, queryCarriesApiKey } from './credentials';
import type { ApiKeyPrincipal, PresentedApiKey, RateLimitState, RequestRate } from './principal';

export interface AuthRequest {
  headers: IncomingHttpHeaders;
  url?: string;
  /** The client's address (Fastify's request.ip, by TRUST_PROXY): a throttled one is refused before any statement. */
  ip?: string;
  /** Filled in whenever a key was found, so the answer carries the x-ratelimit-* headers even on 429. */
  rateLimit?: RateLimitState;
}

/**
 * The one authentication path for REST requests and socket handshakes. Keys are looked up by their
 * SHA-256: the database compares digests, never the key, so timing reveals nothing about the secret.
 */
@Injectable()
export class AuthService {
  private readonly rate: RequestRate;

  constructor(
    private readonly keys: KeyChecksRepository,
    private readonly throttle: FailedAuthThrottle,
    config: AppConfig,
  ) {
    this.rate = { capacity: config.rateLimitPerMinute, refillPerSecond: config.rateLimitPerMinute / 60 };
  }

  /** Resolves the request's API key or throws the AppError that explains why not. */
  async authenticateApiKey(request: AuthRequest): Promise<ApiKeyPrincipal> {
    const hash = sha256Hex(this.readApiKey(request));
    return this.settle(await this.takeRequestToken(hash), request, hash);
  }

  /**
   * For a route that checks the key in its own statement: everything about the key that needs no
   * database. The returned key applies that statement's verdict to this request.
   */
  presentApiKey(request: AuthRequest): PresentedApiKey {
    const hash = sha256Hex(this.readApiKey(request));
    let settled = false;
    const settle = (check: KeyCheck | null) => {
      settled = true;
      return this.settle(check, request, hash);
    };
    return {
      hash,
      rate: this.rate,
      settle,
      get settled() {
        return settled;
      },
      check: async () => {
        if (!settled) settle(await this.takeRequestToken(hash));
      },
    };
  }

  async verifyApiKey(value: string, request: AuthRequest): Promise<ApiKeyPrincipal> {
    if (!isApiKey(value)) throw invalidKey();
    const hash = sha256Hex(value);
    return this.settle(await this.takeRequestToken(hash), request, hash);
  }

  private readApiKey(request: AuthRequest): string {
    if (queryCarriesApiKey(request.url)) {
      throw new AppError('api_key_in_query', 'API keys are never accepted in a query string; send them in a header');
    }
    const result = extractHeaderCredential(request.headers);
    if (result.kind === 'none') {
      throw new AppError('missing_api_key', 'Send an API key as "Authorization: Bearer <key>" or "X-API-Key: <key>"');
    }
    if (result.kind === 'malformed') throw new AppError('invalid_api_key', result.reason);
    const { value } = result.credential;
    if (isClientSecret(value)) {
      throw new AppError('permission_denied', 'A client secret opens a session socket; REST calls need an API key');
    }
    if (!isApiKey(value)) throw invalidKey();
    this.throttle.refuseThrottled(request.ip, value);
    return value;
  }

  private takeRequestToken(keyHash: string): Promise<KeyCheck | null> {
    return this.keys.checkAndConsume(keyHash, this.rate.capacity, this.rate.refillPerSecond);
  }

  /** What the database found for a key, as the request's principal and rate-limit headers, or the refusal. */
  private settle(check: KeyCheck | null, request: AuthRequest, hash: string): ApiKeyPrincipal {
    if (!check) throw invalidKey();
    if (check.revoked) {
      this.throttle.forgetServed(hash);
      throw new AppError('key_revoked', 'The API key has been revoked');
    }
    this.throttle.noteServed(hash);
    // The project's own rate when an operator set one; the bucket refills its capacity every minute.
    const capacity = check.capacity;
    const refillPerSecond = capacity / 60;
    request.rateLimit = {
      limit: capacity,
      remaining: Math.max(0, Math.floor(check.tokens)),
      resetMs: Math.ceil(((capacity - check.tokens) / refillPerSecond) * 1000),
    };
    if (!check.allowed) {
      const retryAfterMs = Math.ceil(((1 - check.tokens) / refillPerSecond) * 1000);
      throw new AppError('rate_limit_exceeded', `Request rate limit of ${capacity} per minute reached for this key`, {
        retryAfterMs,
      });
    }
    return { kind: 'api_key', projectId: check.projectId, apiKeyId: check.id };
  }
}

const invalidKey = () => new AppError('invalid_api_key', 'The API key is not valid');

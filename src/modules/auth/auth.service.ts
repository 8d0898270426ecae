import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../common/errors/app-error';
import { sha256Hex } from '../../common/ids';
import { ApiKeysRepository } from '../projects/api-keys.repository';
import { Credential, extractHeaderCredential, isApiKey, isClientSecret, queryCarriesApiKey } from './credentials';
import { ApiKeyPrincipal, RateLimitState } from './principal';

export interface AuthRequest {
  headers: IncomingHttpHeaders;
  url?: string;
  /** Filled in whenever a key was found, so the answer carries the x-ratelimit-* headers even on 429. */
  rateLimit?: RateLimitState;
}

/**
 * The one authentication path for REST requests and socket handshakes. Keys are looked up by their
 * SHA-256: the database compares digests, never the key, so timing reveals nothing about the secret.
 */
@Injectable()
export class AuthService {
  private readonly capacity: number;
  private readonly refillPerSecond: number;

  constructor(
    private readonly keys: ApiKeysRepository,
    config: AppConfig,
  ) {
    this.capacity = config.rateLimitPerMinute;
    this.refillPerSecond = config.rateLimitPerMinute / 60;
  }

  /** Resolves the request's API key or throws the AppError that explains why not. */
  async authenticateApiKey(request: AuthRequest, credential?: Credential): Promise<ApiKeyPrincipal> {
    if (queryCarriesApiKey(request.url)) {
      throw new AppError('api_key_in_query', 'API keys are never accepted in a query string; send them in a header');
    }
    const found = credential ?? this.requireHeaderCredential(request.headers);
    if (isClientSecret(found.value)) {
      throw new AppError('permission_denied', 'A client secret opens a session socket; REST calls need an API key');
    }
    return this.verifyApiKey(found.value, request);
  }

  requireHeaderCredential(headers: IncomingHttpHeaders): Credential {
    const result = extractHeaderCredential(headers);
    if (result.kind === 'none') {
      throw new AppError('missing_api_key', 'Send an API key as "Authorization: Bearer <key>" or "X-API-Key: <key>"');
    }
    if (result.kind === 'malformed') throw new AppError('invalid_api_key', result.reason);
    return result.credential;
  }

  async verifyApiKey(value: string, request: AuthRequest): Promise<ApiKeyPrincipal> {
    if (!isApiKey(value)) throw new AppError('invalid_api_key', 'The API key is not valid');
    const check = await this.keys.checkAndConsume(sha256Hex(value), this.capacity, this.refillPerSecond);
    if (!check) throw new AppError('invalid_api_key', 'The API key is not valid');
    if (check.revoked) throw new AppError('key_revoked', 'The API key has been revoked');
    request.rateLimit = {
      limit: this.capacity,
      remaining: Math.max(0, Math.floor(check.tokens)),
      resetMs: Math.ceil(((this.capacity - check.tokens) / this.refillPerSecond) * 1000),
    };
    if (!check.allowed) {
      const retryAfterMs = Math.ceil(((1 - check.tokens) / this.refillPerSecond) * 1000);
      throw new AppError(
        'rate_limit_exceeded',
        `Request rate limit of ${this.capacity} per minute reached for this key`,
        {
          retryAfterMs,
        },
      );
    }
    return { kind: 'api_key', projectId: check.projectId, apiKeyId: check.id };
  }
}

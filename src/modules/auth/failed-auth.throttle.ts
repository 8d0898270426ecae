import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../platform/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { clientAddress, TrustProxy } from '../../config/trusted-proxies';
import { sha256Hex } from '../../platform/ids';
import { AuthFailuresRepository } from './auth-failures.repository';
import { isApiKey } from './credentials';
import { ThrottleMemory } from './throttle-memory';

/**
 * Throttles bad-key traffic per client address: every authentication refusal (a 401 on REST or on a
 * socket handshake) takes a token from the address's bucket, shared by all instances through the
 * database; once it is empty the refusal becomes a 429 `rate_limit_exceeded` with `retry_after_ms`.
 * A request with a good key never reaches the bucket, so good keys are never slowed, even from an
 * address (a NAT, a proxy) that also sends bad ones.
 *
 * Once the database has answered an address 429, this instance answers it 429 from memory until its
 * bucket holds a token again (ThrottleMemory), before any statement: a throttled client costs the
 * database nothing, however fast it sends.
 */
@Injectable()
export class FailedAuthThrottle {
  private readonly logger = new Logger(FailedAuthThrottle.name);
  private readonly capacity: number;
  private readonly refillPerSecond: number;
  private readonly trustProxy: TrustProxy;
  private readonly memory = new ThrottleMemory();

  constructor(
    private readonly failures: AuthFailuresRepository,
    config: AppConfig,
  ) {
    this.capacity = config.authFailuresPerMinute;
    this.refillPerSecond = config.authFailuresPerMinute / 60;
    this.trustProxy = config.trustProxy;
  }

  /** A socket upgrade's client address, by the TRUST_PROXY rule that gives REST its request.ip. */
  addressOf(req: IncomingMessage): string | undefined {
    return clientAddress(req, this.trustProxy);
  }

  /**
   * Throws the 429 for a request from an address this instance knows to be throttled, before its
   * credential costs a statement; a key this instance has served passes, to be looked up as usual.
   */
  refuseThrottled(address: string | undefined, credential: string | undefined): void {
    const blockedMs = this.memory.blockedFor(address);
    if (blockedMs === 0) return;
    if (credential !== undefined && isApiKey(credential) && this.memory.served(sha256Hex(credential))) return;
    throw this.tooMany(blockedMs);
  }

  /** A key the database found and allowed: see refuseThrottled. */
  noteServed(keyHash: string): void {
    this.memory.noteServed(keyHash);
  }

  /** A key the database no longer serves (revoked). */
  forgetServed(keyHash: string): void {
    this.memory.forgetServed(keyHash);
  }

  /** The refusal to answer with for `error`, raised for a request from `address`: itself, or a 429. */
  async judge(error: unknown, address: string | undefined): Promise<unknown> {
    if (!(error instanceof AppError) || error.status !== 401 || !address) return error;
    // A refusal that needed no statement (no key, a malformed one) from a throttled address: still none.
    const blockedMs = this.memory.blockedFor(address);
    if (blockedMs > 0) return this.tooMany(blockedMs);
    try {
      const verdict = await this.failures.record(address, this.capacity, this.refillPerSecond);
      if (verdict.allowed) return error;
      const retryAfterMs = Math.ceil(((1 - verdict.tokens) / this.refillPerSecond) * 1000);
      this.memory.block(address, retryAfterMs);
      return this.tooMany(retryAfterMs);
    } catch (failure) {
      // The refusal stands either way; a database that cannot count failures must not turn it into a 500.
      this.logger.warn({ err: failure }, 'could not record a failed authentication');
      return error;
    }
  }

  private tooMany(retryAfterMs: number): AppError {
    return new AppError(
      'rate_limit_exceeded',
      `Too many failed authentications from this address (${this.capacity} per minute)`,
      { retryAfterMs },
    );
  }
}

import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../platform/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { clientAddress, TrustProxy } from '../../config/trusted-proxies';
import { sha256Hex } from '../../platform/ids';
import { AuthFailuresRepository } from './auth-failures.repository';
import { isApiKey } from './credentials';
import { CredentialSigner } from './credential-signer';
import { ThrottleMemory } from './throttle-memory';

/** Refusals that a credential never recovers from: a signed one refused so is not looked up again. */
const SPENT = new Set([
  'invalid_api_key',
  'key_revoked',
  'invalid_client_secret',
  'client_secret_expired',
  'client_secret_used',
]);

/**
 * Throttles bad-key traffic per client address: every authentication refusal (a 401 on REST or on a
 * socket handshake) takes a token from the address's bucket, shared by all instances through the
 * database; once it is empty the refusal becomes a 429 `rate_limit_exceeded` with `retry_after_ms`.
 * A request with a good key never reaches the bucket, so good keys are never slowed, even from an
 * address (a NAT, a proxy) that also sends bad ones.
 *
 * Once the database has answered an address 429, this instance answers it 429 from memory until its
 * bucket holds a token again (ThrottleMemory), before any statement: a throttled client costs the
 * database nothing, however fast it sends. The exception is a credential that may be good: one this
 * service signed (CredentialSigner; a forgery fails the HMAC in memory) and the database has not
 * refused for good, or a key this instance has served. It is looked up as usual, so a valid key or
 * client secret is never refused for what other clients at its address did.
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
    private readonly signer: CredentialSigner,
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
   * credential costs a statement; a credential that may be good passes, to be looked up as usual.
   */
  refuseThrottled(address: string | undefined, credential: string | undefined): void {
    const blockedMs = this.memory.blockedFor(address);
    if (blockedMs === 0) return;
    if (credential !== undefined && this.mayBeGood(credential)) return;
    throw this.tooMany(blockedMs);
  }

  private mayBeGood(credential: string): boolean {
    if (this.signer.minted(credential)) return !this.memory.refused(sha256Hex(credential));
    return isApiKey(credential) && this.memory.served(sha256Hex(credential));
  }

  /** A key the database found and allowed: see refuseThrottled. */
  noteServed(keyHash: string): void {
    this.memory.noteServed(keyHash);
  }

  /** A key the database no longer serves (revoked). */
  forgetServed(keyHash: string): void {
    this.memory.forgetServed(keyHash);
  }

  /**
   * The refusal to answer with for `error`, raised for a request from `address` that presented
   * `credential`: itself, or a 429.
   */
  async judge(error: unknown, address: string | undefined, credential?: string): Promise<unknown> {
    if (!(error instanceof AppError)) return error;
    if (credential !== undefined && SPENT.has(error.code) && this.signer.minted(credential)) {
      this.memory.noteRefused(sha256Hex(credential));
    }
    if (error.status !== 401 || !address) return error;
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

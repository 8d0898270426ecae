/** Enough for every address of a large NAT pool and every key a busy instance serves, in a few MB. */
const MAX_ENTRIES = 50_000;

/**
 * What one instance remembers between database verdicts of the failed-auth throttle, so that a client
 * it already answered 429 is answered again without a statement:
 *
 * - when an address's bucket was found empty: the time it holds a token again. Failures elsewhere only
 *   take tokens, so until then the database could only say 429 again; the bucket refills meanwhile, so
 *   the address still gets its one failure per refill interval, no more.
 * - the keys this instance has served (by SHA-256), which are looked up even from a throttled address:
 *   a good key is never slowed by the bad ones its NAT or proxy shares an address with (for keys
 *   minted before keys were signed; a signed one is looked up anyway, see FailedAuthThrottle).
 * - signed credentials the database refused for good (revoked, expired, used), by SHA-256: a genuine
 *   but spent credential is then refused from a throttled address as a forged one is, in memory.
 * All are bounded, and forgetting is always safe: a forgotten address's next refusal asks the database
 * again, and a forgotten key is looked up as any key is.
 */
export class ThrottleMemory {
  private readonly blockedUntil = new Map<string, number>();
  private readonly servedKeys = new BoundedSet();
  private readonly refusedCredentials = new BoundedSet();

  /** Milliseconds until `address` may fail again, or 0. */
  blockedFor(address: string | undefined, now = Date.now()): number {
    if (!address) return 0;
    const until = this.blockedUntil.get(address);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.blockedUntil.delete(address);
    return 0;
  }

  block(address: string, forMs: number, now = Date.now()): void {
    this.blockedUntil.delete(address);
    if (this.blockedUntil.size >= MAX_ENTRIES) this.evictBlocks(now);
    this.blockedUntil.set(address, now + forMs);
  }

  served(keyHash: string): boolean {
    return this.servedKeys.has(keyHash);
  }

  /** Remembers a key that was found and allowed; the oldest is forgotten first. */
  noteServed(keyHash: string): void {
    this.servedKeys.add(keyHash);
  }

  refused(credentialHash: string): boolean {
    return this.refusedCredentials.has(credentialHash);
  }

  noteRefused(credentialHash: string): void {
    this.refusedCredentials.add(credentialHash);
  }

  forgetServed(keyHash: string): void {
    this.servedKeys.delete(keyHash);
  }

  /** Expired blocks first; then, under a flood of distinct addresses, the oldest. */
  private evictBlocks(now: number): void {
    for (const [address, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(address);
    for (const address of this.blockedUntil.keys()) {
      if (this.blockedUntil.size < MAX_ENTRIES) break;
      this.blockedUntil.delete(address);
    }
  }
}

/** A set of at most MAX_ENTRIES members; the oldest is forgotten first. */
class BoundedSet {
  private readonly members = new Set<string>();

  has(member: string): boolean {
    return this.members.has(member);
  }

  add(member: string): void {
    if (this.members.has(member)) return;
    if (this.members.size >= MAX_ENTRIES) this.members.delete(this.members.values().next().value as string);
    this.members.add(member);
  }

  delete(member: string): void {
    this.members.delete(member);
  }
}

/**
 * Typed reads of one object of the engines document. Every failure is a ConfigError that names the
 * setting and the path inside it (`ENGINES_FILE=/etc/engines.json engines.asr.workers[1]: …`), so
 * a wrong deployment stops at start with a message an operator can act on.
 */
import { ConfigError } from '../../config/environment';
import { credentialRef, type CredentialRef } from './credential-ref';

export type { CredentialRef };

export class ConfigSection {
  constructor(
    /** The setting the document came from (`ENGINES_JSON`, `ENGINES_FILE=…`). */
    readonly setting: string,
    /** Path of this object inside the document (`engines.asr`). */
    readonly path: string,
    readonly values: Readonly<Record<string, unknown>>,
  ) {}

  static of(setting: string, path: string, value: unknown): ConfigSection {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new ConfigError(`Invalid configuration:\n  ${setting} ${path}: must be an object`);
    return new ConfigSection(setting, path, value as Record<string, unknown>);
  }

  /** A ConfigError about `key` of this object (or the object itself). */
  error(key: string | null, message: string): ConfigError {
    const where = key === null ? this.path : `${this.path}.${key}`;
    return new ConfigError(`Invalid configuration:\n  ${this.setting} ${where}: ${message}`);
  }

  has(key: string): boolean {
    return this.values[key] !== undefined;
  }

  /** Refuses keys the kind does not know (a typo must not silently fall back to a default). */
  allowOnly(keys: readonly string[]): void {
    for (const key of Object.keys(this.values))
      if (!keys.includes(key)) throw this.error(key, `unknown setting (known: ${keys.join(', ')})`);
  }

  section(key: string): ConfigSection {
    return ConfigSection.of(this.setting, `${this.path}.${key}`, this.values[key]);
  }

  string(key: string, fallback?: string): string {
    const value = this.values[key] ?? fallback;
    if (typeof value !== 'string' || value.trim() === '') throw this.error(key, 'must be a non-empty string');
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback?: T): T {
    const value = this.values[key] ?? fallback;
    if (typeof value !== 'string' || !allowed.includes(value as T))
      throw this.error(key, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
    return value as T;
  }

  int(key: string, fallback: number, min: number, max: number): number {
    const value = this.values[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      throw this.error(key, `must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
    return value;
  }

  strings(key: string, fallback?: readonly string[]): string[] {
    const value = this.values[key] ?? fallback;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === ''))
      throw this.error(key, 'must be a list of non-empty strings');
    return [...(value as string[])];
  }

  /** A ws:// or wss:// URL. */
  socketUrl(value: unknown, where: string): URL {
    let url: URL | null = null;
    try {
      url = typeof value === 'string' ? new URL(value) : null;
    } catch {
      url = null;
    }
    if (url === null || (url.protocol !== 'ws:' && url.protocol !== 'wss:'))
      throw this.error(where, `must be a ws:// or wss:// URL (got ${JSON.stringify(value)})`);
    return url;
  }

  /** `{"env": "NAME"}` or `{"file": "/run/secrets/key"}`; the value itself never sits in the document. */
  credential(key: string): CredentialRef | null {
    return credentialRef(this.values[key], (rule) => this.error(key, rule));
  }
}

/**
 * What a settings rule answers when it refuses a value: the code and `param` a Realtime `error`
 * carries. The REST path turns it into its own shape (secret-settings in client-secrets): an
 * unserved value (`unsupported_*`) is a 400 at its param, a malformed one a 422 at its loc.
 */
export class SettingRefusal {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly param: string | null,
  ) {}

  /** Well formed, but not served here (by the service, or by this session's engine). */
  get unserved(): boolean {
    return this.code.startsWith('unsupported_');
  }
}

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An absent optional object reads as empty; anything else must be an object. */
export function object(value: unknown, param: string, required = false): Fields {
  if (value === undefined && !required) return {};
  if (!isRecord(value)) {
    const kind = value === undefined ? 'missing_required_parameter' : 'invalid_type';
    throw new SettingRefusal(kind, `${param} must be an object`, param);
  }
  return value;
}

export function known(fields: Fields, allowed: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(fields)) {
    if (!allowed.has(key)) {
      const param = prefix === '' ? key : `${prefix}.${key}`;
      throw new SettingRefusal('unknown_parameter', `Unknown parameter: '${param}'.`, param);
    }
  }
}

export function string(value: unknown, param: string, required = false, max = 1_000_000): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') {
    throw new SettingRefusal(
      value === undefined ? 'missing_required_parameter' : 'invalid_type',
      `${param} must be a string`,
      param,
    );
  }
  if (value.length > max) {
    throw new SettingRefusal('string_above_max_length', `${param} is longer than ${max} characters`, param);
  }
  return value;
}

/** A bounded number (`bounds.integer`: whole numbers only); undefined stays undefined. */
export function bounded(value: unknown, param: string, bounds: Bounds): number | undefined {
  if (value === undefined) return undefined;
  const { min, max, integer } = bounds;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer === true && !Number.isInteger(value))) {
    throw new SettingRefusal('invalid_type', `${param} must be ${integer === true ? 'an integer' : 'a number'}`, param);
  }
  if (value < min || value > max) {
    throw new SettingRefusal('invalid_value', `${param} must be between ${min} and ${max}`, param);
  }
  return value;
}

export interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly integer?: boolean;
}

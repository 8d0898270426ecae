import type { ValidationIssue } from '../errors/validation-error';

// Keys named like Object.prototype members (`valueOf`, `toString`, `constructor`, `__proto__`…) never
// reach validation intact: class-transformer silently drops them, so `{"valueOf": 1}` would pass as
// an empty body and `metadata.toString` would vanish, and it crashes (a 500) on an object with a
// `constructor` key where no request object is declared. The validation pipe takes them out before
// transforming and refuses them itself.

const FREE_FORM_MAP = 'continuum:free-form-map';

/**
 * Declares a property a free-form map: its keys are the client's data, not request fields, so a
 * reserved key in it is a bad value of the map (value_error at the map's loc), not an unknown field.
 */
export const FreeFormMap = (): PropertyDecorator => Reflect.metadata(FREE_FORM_MAP, true);

/** Read from the prototype chain, so that a subclass of the DTO keeps its maps. */
const isFreeFormMap = (dto: unknown, property: string): boolean =>
  typeof dto === 'object' && dto !== null && Reflect.getMetadata(FREE_FORM_MAP, dto, property) === true;

const isReservedKey = (key: string): boolean => key in Object.prototype;

/** Whether `value` holds a reserved key at any depth. */
export function hasReservedKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasReservedKey);
  return Object.keys(value).some(
    (key) => isReservedKey(key) || hasReservedKey((value as Record<string, unknown>)[key]),
  );
}

/** A copy without the reserved keys, at any depth, so that the rest is still validated in full. */
export function withoutReservedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(withoutReservedKeys);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !isReservedKey(key))
      .map(([key, item]) => [key, withoutReservedKeys(item)]),
  );
}

/**
 * The issues for the reserved keys of `raw`. `dto` is what class-transformer made of `raw` without
 * them: its instances tell which properties are free-form maps, at any depth, so no path is kept here.
 * A reserved key is extra_forbidden at its own loc, or value_error at the loc of the map holding it.
 */
export function reservedKeyIssues(
  raw: unknown,
  dto: unknown,
  loc: (string | number)[],
  inMap = false,
): ValidationIssue[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const shaped = typeof dto === 'object' && dto !== null ? (dto as Record<string | number, unknown>) : {};
  if (Array.isArray(raw)) return raw.flatMap((item, i) => reservedKeyIssues(item, shaped[i], [...loc, i]));
  return Object.entries(raw).flatMap(([key, item]): ValidationIssue[] => {
    if (!isReservedKey(key)) return reservedKeyIssues(item, shaped[key], [...loc, key], isFreeFormMap(dto, key));
    return inMap
      ? [{ loc, msg: `the key ${JSON.stringify(key)} is reserved`, type: 'value_error' }]
      : [{ loc: [...loc, key], msg: `property ${key} should not exist`, type: 'extra_forbidden' }];
  });
}

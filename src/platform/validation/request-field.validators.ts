import { registerDecorator, ValidateIf, ValidationArguments } from 'class-validator';
import { FreeFormMap } from './reserved-keys';

/** Absent is fine; present (null included) must validate. `@IsOptional` would let null through. */
export const OptionalField = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Absent or null is fine; anything else must validate. */
export const NullableField = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

export const METADATA_LIMITS = { maxKeys: 16, maxKeyLength: 64, maxValueLength: 512 } as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Lengths count characters (code points), not UTF-16 units. */
const chars = (text: string): number => [...text].length;

const entriesOf = (value: unknown): [string, unknown][] => (isPlainObject(value) ? Object.entries(value) : []);

/**
 * A string-to-string map of at most 16 keys of 1..64 characters and values of at most 512. Each rule
 * is its own constraint, named with the 422 `type` it reports (dict_type, too_long, string_type,
 * string_too_short, string_too_long), and names the offending key in its message where it can. Its
 * keys are the client's own: a reserved one is refused as a bad value of the map (see FreeFormMap).
 */
export function IsMetadata(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    FreeFormMap()(target, propertyName);
    const rule = (
      name: string,
      validate: (value: unknown) => boolean,
      message: (args: ValidationArguments) => string,
    ) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName: propertyName as string,
        validator: { validate, defaultMessage: message },
      });
    rule('dict_type', isPlainObject, () => 'metadata must be an object of string keys to string values');
    rule(
      'too_long',
      (value) => entriesOf(value).length <= METADATA_LIMITS.maxKeys,
      () => `metadata may hold at most ${METADATA_LIMITS.maxKeys} keys`,
    );
    rule(
      'string_type',
      (value) => entriesOf(value).every(([, v]) => typeof v === 'string'),
      ({ value }) => `metadata.${entriesOf(value).find(([, v]) => typeof v !== 'string')?.[0]} must be a string`,
    );
    rule(
      'string_too_short',
      (value) => entriesOf(value).every(([k]) => chars(k) >= 1),
      () => 'metadata keys must not be empty',
    );
    rule(
      'string_too_long',
      (value) =>
        entriesOf(value).every(
          ([k, v]) =>
            chars(k) <= METADATA_LIMITS.maxKeyLength &&
            (typeof v !== 'string' || chars(v) <= METADATA_LIMITS.maxValueLength),
        ),
      ({ value }) => {
        const [key] = entriesOf(value).find(
          ([k, v]) =>
            chars(k) > METADATA_LIMITS.maxKeyLength ||
            (typeof v === 'string' && chars(v) > METADATA_LIMITS.maxValueLength),
        )!;
        return chars(key) > METADATA_LIMITS.maxKeyLength
          ? `metadata keys must be at most ${METADATA_LIMITS.maxKeyLength} characters long`
          : `metadata.${key} must be at most ${METADATA_LIMITS.maxValueLength} characters long`;
      },
    );
  };
}

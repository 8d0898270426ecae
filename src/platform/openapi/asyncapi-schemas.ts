/**
 * Small builders for the JSON Schemas of the AsyncAPI document. Objects are closed
 * (`additionalProperties: false`) by default: the conformance test validates real frames against
 * them, so a field the server starts sending without documenting it fails the test.
 */
export type JsonSchema = { readonly [key: string]: unknown };

const described = (schema: JsonSchema, description?: string): JsonSchema =>
  description === undefined ? schema : { ...schema, description };

export const str = (description?: string): JsonSchema => described({ type: 'string' }, description);
export const int = (description?: string, minimum?: number): JsonSchema =>
  described(minimum === undefined ? { type: 'integer' } : { type: 'integer', minimum }, description);
export const num = (description?: string): JsonSchema => described({ type: 'number' }, description);
export const bool = (description?: string): JsonSchema => described({ type: 'boolean' }, description);
export const constant = (value: string | number | boolean | null, description?: string): JsonSchema =>
  described({ const: value }, description);
export const oneOfValues = (values: readonly (string | number)[], description?: string): JsonSchema =>
  described({ type: typeof values[0] === 'number' ? 'integer' : 'string', enum: [...values] }, description);
export const nullable = (schema: JsonSchema, description?: string): JsonSchema =>
  described({ oneOf: [schema, { type: 'null' }] }, description);
export const array = (items: JsonSchema, description?: string): JsonSchema =>
  described({ type: 'array', items }, description);
export const anyJson = (description?: string): JsonSchema => described({}, description);
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const binary = (description?: string): JsonSchema =>
  described({ type: 'string', format: 'binary' }, description);

type Fields = Record<string, JsonSchema>;

/**
 * A closed object that remembers its property names in its type (the phantom members are never
 * set), so a table of schemas can be checked against a protocol's TypeScript types at compile time.
 * Function-typed phantoms make the check exact: a missing or an extra name is a type error.
 */
export interface ObjectSchema<Required extends string, Optional extends string> extends JsonSchema {
  readonly __required?: (name: Required) => Required;
  readonly __optional?: (name: Optional) => Optional;
}

/** A closed object: `required` fields must be present, `optional` ones may be. */
export function object<R extends Fields, O extends Fields = Record<never, JsonSchema>>(
  required: R,
  optional?: O,
  description?: string,
): ObjectSchema<keyof R & string, keyof O & string> {
  const names = Object.keys(required);
  return described(
    {
      type: 'object',
      properties: { ...required, ...optional },
      ...(names.length > 0 ? { required: names } : {}),
      additionalProperties: false,
    },
    description,
  );
}

/** An object whose other properties are accepted and ignored (what a client may send beyond ours). */
export function openObject(required: Fields, optional: Fields = {}, description?: string): JsonSchema {
  return { ...object(required, optional, description), additionalProperties: true };
}

/** A message that names itself in `type`, as every JSON message of the three dialects does. */
export const typed = <R extends Fields, O extends Fields = Record<never, JsonSchema>>(
  type: string,
  fields: R,
  optional?: O,
): ObjectSchema<'type' | (keyof R & string), keyof O & string> => object({ type: constant(type), ...fields }, optional);

/** The names of T's required and optional properties: what an ObjectSchema of T must list. */
type RequiredNames<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T] & string;
type OptionalNames<T> = Exclude<keyof T, RequiredNames<T>> & string;
export type SchemaOf<T> = ObjectSchema<RequiredNames<T>, OptionalNames<T>>;

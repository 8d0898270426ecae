/**
 * Checks a value against the JSON Schema subset the AsyncAPI document uses (type, const, enum,
 * properties, required, additionalProperties, items, maxItems, minimum, maximum, oneOf, local $ref), and
 * says where it fails. Small on purpose: the document's schemas are built from a few builders.
 */
type Schema = Record<string, any>;

export function schemaProblems(value: unknown, schema: Schema, root: Schema, at = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    if (!target) return [`${at}: unresolved ${schema.$ref}`];
    return schemaProblems(value, target, root, at);
  }
  if ('const' in schema && value !== schema.const) return [`${at}: ${json(value)} is not ${json(schema.const)}`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${json(value)} is not one of ${json(schema.enum)}`];
  if (schema.oneOf) {
    const passing = (schema.oneOf as Schema[]).filter((s) => schemaProblems(value, s, root, at).length === 0);
    if (passing.length !== 1) return [`${at}: ${json(value)} matches ${passing.length} of oneOf`];
  }
  if (schema.type !== undefined && !typeMatches(value, schema.type))
    return [`${at}: ${json(value)} is not ${schema.type}`];
  const problems: string[] = [];
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) {
    problems.push(`${at}: ${value} < ${schema.minimum}`);
  }
  if (typeof value === 'number' && schema.maximum !== undefined && value > schema.maximum) {
    problems.push(`${at}: ${value} > ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${at}: too many items`);
    if (schema.items) value.forEach((v, i) => problems.push(...schemaProblems(v, schema.items, root, `${at}[${i}]`)));
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in record)) problems.push(`${at}.${name}: missing`);
    for (const [name, v] of Object.entries(record)) {
      const property = schema.properties?.[name];
      if (property) problems.push(...schemaProblems(v, property, root, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}.${name}: not documented`);
      else if (typeof schema.additionalProperties === 'object') {
        problems.push(...schemaProblems(v, schema.additionalProperties, root, `${at}.${name}`));
      }
    }
  }
  return problems;
}

function typeMatches(value: unknown, type: string | string[]): boolean {
  return (Array.isArray(type) ? type : [type]).some((t) => {
    switch (t) {
      case 'null':
        return value === null;
      case 'integer':
        return Number.isInteger(value);
      case 'array':
        return Array.isArray(value);
      case 'object':
        return value !== null && typeof value === 'object' && !Array.isArray(value);
      default:
        return typeof value === t;
    }
  });
}

const json = (value: unknown) => JSON.stringify(value);

import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationArguments } from 'class-validator';

/**
 * Whether class-validator would find no error in an object, as validateSync(object, { whitelist:
 * true, forbidNonWhitelisted: true, forbidUnknownValues: false }) decides it, with each class's rules
 * gathered once instead of on every call (class-validator filters its whole metadata store for each
 * object it validates: most of a request's validation time). It runs class-validator's own
 * constraints, with the same arguments, in the same conditions.
 *
 * The answer is only ever "valid" or "ask class-validator": anything this does not model (async
 * or promised values, nested arrays, sets or maps) is the latter, and so is every invalid object,
 * whose errors class-validator then words exactly as before. So a false here never changes an
 * answer, and a true is the verdict class-validator would reach.
 */
export function isCertainlyValid(object: object): boolean {
  return check(object, 0);
}

interface Constraint {
  validate(value: unknown, args: ValidationArguments): unknown;
}

interface CustomRule {
  propertyName: string;
  constraints: unknown[];
  each: boolean;
  validateIf?: (object: object, value: unknown) => boolean;
  validators: Constraint[];
}

interface PropertyRules {
  name: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  /** IS_DEFINED rules run even where other options would skip a missing value. */
  defined: CustomRule[];
  custom: CustomRule[];
  nested: boolean;
}

type Constructor = abstract new (...args: never[]) => unknown;

/** Null: the class uses something this check does not model, so class-validator always decides. */
type ClassRules = { properties: PropertyRules[]; known: Set<string> } | null;

const compiled = new WeakMap<Constructor, ClassRules>();
/** Deeper objects are left to class-validator, which the body's depth bound already protects. */
const MAX_DEPTH = 64;

function check(object: object, depth: number): boolean {
  if (depth > MAX_DEPTH || typeof object.constructor !== 'function') return false;
  const rules = rulesOf(object.constructor as Constructor);
  if (!rules) return false;
  // whitelist + forbidNonWhitelisted: a property without any rule is an error.
  for (const key of Object.keys(object)) if (!rules.known.has(key)) return false;
  for (const property of rules.properties) {
    const value = (object as Record<string, unknown>)[property.name];
    if (value instanceof Promise) return false;
    if (!property.conditions.every((condition) => condition(object, value))) continue;
    if (!property.defined.every((rule) => passes(rule, object, value))) return false;
    if (!property.custom.every((rule) => passes(rule, object, value))) return false;
    if (property.nested && value !== undefined) {
      if (Array.isArray(value) || value instanceof Set || value instanceof Map) return false;
      if (!(value instanceof Object) || !check(value, depth + 1)) return false;
    }
  }
  return true;
}

function passes(rule: CustomRule, object: object, value: unknown): boolean {
  if (rule.validateIf && !rule.validateIf(object, value)) return true;
  const args: ValidationArguments = {
    targetName: object.constructor ? object.constructor.name : (undefined as unknown as string),
    property: rule.propertyName,
    object,
    value,
    constraints: rule.constraints,
  };
  const valid = (item: unknown) => rule.validators.every((validator) => validator.validate(item, args) === true);
  if (!rule.each || !(Array.isArray(value) || value instanceof Set || value instanceof Map)) return valid(value);
  return [...(value instanceof Map ? value.values() : value)].every(valid);
}

function rulesOf(target: Constructor): ClassRules {
  let rules = compiled.get(target);
  if (rules === undefined) {
    rules = compile(target);
    compiled.set(target, rules);
  }
  return rules;
}

function compile(target: Constructor): ClassRules {
  const storage = getMetadataStorage();
  // As ValidationExecutor asks for them: no groups, `always` off, strict groups off.
  const metadatas = storage.getTargetValidationMetadatas(target, undefined as unknown as string, false, false);
  const byProperty = new Map<string, PropertyRules>();
  for (const metadata of metadatas) {
    let property = byProperty.get(metadata.propertyName);
    if (!property) {
      property = { name: metadata.propertyName, conditions: [], defined: [], custom: [], nested: false };
      byProperty.set(metadata.propertyName, property);
    }
    switch (metadata.type) {
      case ValidationTypes.CONDITIONAL_VALIDATION:
        property.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
        break;
      case ValidationTypes.WHITELIST:
        break;
      case ValidationTypes.NESTED_VALIDATION:
        property.nested = true;
        break;
      case ValidationTypes.IS_DEFINED:
      case ValidationTypes.CUSTOM_VALIDATION: {
        const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
        // A promised answer is class-validator's to wait for.
        if (constraints.some((constraint) => constraint.async)) return null;
        const rule: CustomRule = {
          propertyName: metadata.propertyName,
          constraints: metadata.constraints,
          each: metadata.each,
          validateIf: (metadata as { validateIf?: CustomRule['validateIf'] }).validateIf,
          validators: constraints.map((constraint) => constraint.instance as Constraint),
        };
        (metadata.type === ValidationTypes.IS_DEFINED ? property.defined : property.custom).push(rule);
        break;
      }
      default:
        return null;
    }
  }
  return { properties: [...byProperty.values()], known: new Set(byProperty.keys()) };
}

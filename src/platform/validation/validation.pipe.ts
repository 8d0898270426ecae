import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { RequestValidationError, ValidationIssue } from '../errors/validation-error';
import { AppError } from '../errors/app-error';
import { UnreadableBody } from '../http/request-body';
import { isCertainlyValid } from './compiled-validity';
import { hasReservedKey, reservedKeyIssues, withoutReservedKeys } from './reserved-keys';
import { findTextProblem, MAX_JSON_DEPTH } from './text-safety';

/** class-validator constraint names → the `type` values of the 422 body (pydantic's vocabulary). */
const ISSUE_TYPE: Record<string, string> = {
  whitelistValidation: 'extra_forbidden',
  isDefined: 'missing',
  isInt: 'int_type',
  isNumber: 'float_type',
  isString: 'string_type',
  isBoolean: 'bool_type',
  isObject: 'dict_type',
  isArray: 'list_type',
  isIn: 'literal_error',
  isEnum: 'enum',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  matches: 'string_pattern_mismatch',
  nestedValidation: 'model_type',
};

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Array, Object]);

/**
 * Validates bodies strictly (unknown properties are 422 `extra_forbidden`) and query strings leniently
 * (unknown parameters are ignored), and reports every problem in the HTTPValidationError shape. Keys
 * named like Object.prototype members are handled here, before class-transformer can lose them.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  transform(value: unknown, meta: ArgumentMetadata): unknown {
    const { metatype, type } = meta;
    if (value instanceof UnreadableBody) throw value.error;
    if (!metatype || PRIMITIVES.has(metatype) || type === 'custom') return value;
    const where = type === 'body' ? 'body' : type === 'param' ? 'path' : 'query';
    if (where === 'body' && (value === undefined || value === null || value === '')) {
      throw new RequestValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    }
    if (where === 'body' && (typeof value !== 'object' || Array.isArray(value))) {
      throw new RequestValidationError([{ loc: ['body'], msg: 'Input should be an object', type: 'model_type' }]);
    }
    if (where === 'body') refuseUnsafeText(value);
    // Nearly every body has no reserved key: then there is nothing to take out or to refuse.
    const reservedKeys = where !== 'body' || hasReservedKey(value);
    const instance = plainToInstance(metatype as new () => object, reservedKeys ? withoutReservedKeys(value) : value, {
      enableImplicitConversion: where !== 'body',
      exposeDefaultValues: true,
    }) as object;
    // Like any unknown query parameter, a reserved one is ignored; in a body it is refused.
    const reserved = where === 'body' && reservedKeys ? reservedKeyIssues(value, instance, [where]) : [];
    // A valid body (nearly all of them) is known so without class-validator's per-call bookkeeping;
    // anything else is validated as before, so every 422 reads as it did.
    if (where === 'body' && reserved.length === 0 && isCertainlyValid(instance)) return instance;
    const errors = validateSync(instance, {
      whitelist: true,
      forbidNonWhitelisted: where === 'body',
      forbidUnknownValues: false,
    });
    const issues = [...reserved, ...toIssues(errors, [where])];
    if (issues.length) throw new RequestValidationError(issues);
    return instance;
  }
}

/** A NUL or a lone surrogate anywhere in a body, key or value, is refused at its loc (text-safety.ts says why). */
function refuseUnsafeText(body: unknown): void {
  const problem = findTextProblem(body);
  if (!problem) return;
  if (problem.kind === 'too_deep') {
    throw new AppError('invalid_request', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
      param: 'body',
    });
  }
  const what = problem.inKey ? 'keys' : 'text';
  throw new RequestValidationError([
    {
      loc: ['body', ...problem.loc],
      msg: `${what} must not contain NUL characters or unpaired UTF-16 surrogates`,
      type: 'string_unicode',
    },
  ]);
}

const TYPE_CHECKS = new Set(['isInt', 'isNumber', 'isString', 'isBoolean', 'isObject', 'isArray', 'isIn', 'isEnum']);

/** Unknown or missing fields first, then wrong types, then everything else (ranges, patterns). */
function priority(constraint: string): number {
  if (constraint === 'whitelistValidation' || constraint === 'isDefined') return 0;
  return TYPE_CHECKS.has(constraint) ? 1 : 2;
}

export function toIssues(errors: ValidationError[], prefix: (string | number)[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const loc = [...prefix, error.property];
    const constraints = Object.entries(error.constraints ?? {});
    // Report the most telling failure once per field: a wrong type makes range checks noise.
    const first = [...constraints].sort(([a], [b]) => priority(a) - priority(b))[0];
    if (first) {
      const [name, msg] = first;
      issues.push({ loc, msg, type: ISSUE_TYPE[name] ?? name });
    }
    if (error.children?.length) issues.push(...toIssues(error.children, loc));
  }
  return issues;
}

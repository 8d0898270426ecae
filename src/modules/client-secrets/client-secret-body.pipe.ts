import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import { RequestValidationError, ValidationIssue } from '../../common/errors/validation-error';
import { RequestValidationPipe } from '../../common/validation/validation.pipe';
import { ClientSecretRequestDto } from './dto/client-secret-request.dto';

/** The raw JSON body: a custom parameter, which the global pipe leaves to ClientSecretBodyPipe. */
export const ClientSecretBody = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<{ body?: unknown }>().body,
);

/** Where the body holds free-form maps rather than request objects. */
const MAPS = [['body', 'metadata'].join('.')];

/**
 * The global validation, guarded against keys named like built-in object members (`valueOf`,
 * `toString`, `constructor`…). class-transformer silently drops such keys, so `{"valueOf": 1}` would
 * pass as an empty body and `metadata.toString` would vanish, and it crashes (a 500) on an object
 * with a `constructor` key where no request object is declared. They are refused up front:
 * extra_forbidden at their own loc, or value_error on metadata, beside whatever else the rest of the
 * body gets wrong.
 */
@Injectable()
export class ClientSecretBodyPipe implements PipeTransform {
  private readonly validation = new RequestValidationPipe();

  transform(raw: unknown): ClientSecretRequestDto {
    const reserved = reservedKeyIssues(raw, ['body']);
    if (reserved.length === 0) return this.validate(raw);
    let issues = reserved;
    try {
      this.validate(withoutReservedKeys(raw));
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      issues = [...reserved, ...error.issues];
    }
    throw new RequestValidationError(issues);
  }

  private validate(body: unknown): ClientSecretRequestDto {
    return this.validation.transform(body, {
      type: 'body',
      metatype: ClientSecretRequestDto,
    }) as ClientSecretRequestDto;
  }
}

const isReserved = (key: string): boolean => key in Object.prototype;

/** A copy without the reserved keys, so that the rest of the body is still validated in full. */
function withoutReservedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(withoutReservedKeys);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !isReserved(key))
      .map(([key, item]) => [key, withoutReservedKeys(item)]),
  );
}

function reservedKeyIssues(value: unknown, loc: (string | number)[]): ValidationIssue[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => reservedKeyIssues(item, [...loc, i]));
  const isMap = MAPS.includes(loc.join('.'));
  return Object.entries(value).flatMap(([key, item]): ValidationIssue[] => {
    if (!isReserved(key)) return reservedKeyIssues(item, [...loc, key]);
    return isMap
      ? [{ loc, msg: `the key ${JSON.stringify(key)} is reserved`, type: 'value_error' }]
      : [{ loc: [...loc, key], msg: `property ${key} should not exist`, type: 'extra_forbidden' }];
  });
}

import { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsOptional, Max, ValidateNested } from 'class-validator';
import { RequestValidationError, ValidationIssue } from '../errors/validation-error';
import { FreeFormMap } from './reserved-keys';
import { RequestValidationPipe } from './validation.pipe';

class InnerDto {
  @IsOptional()
  @IsInt()
  n?: number;
  @IsOptional()
  @FreeFormMap()
  @IsObject()
  tags?: Record<string, string>;
}

class BodyDto {
  @IsOptional()
  @Max(10)
  @IsInt()
  count?: number;
  @IsOptional()
  @Type(() => InnerDto)
  @ValidateNested()
  @IsObject()
  inner?: InnerDto;
  @IsOptional()
  @Type(() => InnerDto)
  @ValidateNested({ each: true })
  @IsArray()
  list?: InnerDto[];
  @IsOptional()
  @FreeFormMap()
  @IsObject()
  labels?: Record<string, string>;
}

/** Maps are found through the prototype chain too. */
class DerivedBodyDto extends BodyDto {}

const pipe = new RequestValidationPipe();
const asBody: ArgumentMetadata = { type: 'body', metatype: BodyDto };

/** The issues the pipe reports, or the error itself when it throws anything but a validation error. */
function issuesOf(value: unknown, meta: ArgumentMetadata = asBody): ValidationIssue[] {
  try {
    pipe.transform(value, meta);
  } catch (error) {
    if (error instanceof RequestValidationError) return error.issues;
    throw error;
  }
  throw new Error('expected a validation error');
}

const issue = (loc: (string | number)[], type: string) => ({ loc, msg: expect.any(String), type });

describe('RequestValidationPipe', () => {
  it('returns the DTO instance of a valid body, nested objects and maps included', () => {
    const body = pipe.transform(
      { count: 3, inner: { n: 1, tags: { a: 'b' } }, list: [{ n: 2 }], labels: { x: 'y' } },
      asBody,
    );
    expect(body).toBeInstanceOf(BodyDto);
    expect(body).toEqual({ count: 3, inner: { n: 1, tags: { a: 'b' } }, list: [{ n: 2 }], labels: { x: 'y' } });
    expect((body as BodyDto).inner).toBeInstanceOf(InnerDto);
  });

  it('refuses an unknown property of the body', () => {
    expect(issuesOf({ other: 1 })).toEqual([issue(['body', 'other'], 'extra_forbidden')]);
  });

  describe('keys named like Object.prototype members', () => {
    it('refuses one at the top as an unknown property, not as an empty body', () => {
      expect(issuesOf({ valueOf: 1 })).toEqual([issue(['body', 'valueOf'], 'extra_forbidden')]);
    });

    it('refuses one in a nested request object, and in request objects of a list, at its own loc', () => {
      expect(issuesOf({ inner: { n: 1, toString: 'x' } })).toEqual([
        issue(['body', 'inner', 'toString'], 'extra_forbidden'),
      ]);
      expect(issuesOf({ list: [{ n: 1 }, { hasOwnProperty: 1 }] })).toEqual([
        issue(['body', 'list', 1, 'hasOwnProperty'], 'extra_forbidden'),
      ]);
    });

    it("refuses one in a map as a value_error at the map's loc, at any depth", () => {
      expect(issuesOf({ labels: { toString: 'x', ok: 'y' } })).toEqual([issue(['body', 'labels'], 'value_error')]);
      expect(issuesOf({ inner: { tags: { valueOf: 'x' } } })).toEqual([
        issue(['body', 'inner', 'tags'], 'value_error'),
      ]);
      expect(issuesOf({ labels: { isPrototypeOf: 'x' } }, { type: 'body', metatype: DerivedBodyDto })).toEqual([
        issue(['body', 'labels'], 'value_error'),
      ]);
    });

    it('reports them beside every other problem of the body', () => {
      const issues = issuesOf({ valueOf: 1, count: 11, other: 1, labels: { constructor: 'x' }, inner: { n: 'a' } });
      expect(issues).toHaveLength(5);
      expect(issues).toEqual(
        expect.arrayContaining([
          issue(['body', 'valueOf'], 'extra_forbidden'),
          issue(['body', 'labels'], 'value_error'),
          issue(['body', 'count'], 'less_than_equal'),
          issue(['body', 'other'], 'extra_forbidden'),
          issue(['body', 'inner', 'n'], 'int_type'),
        ]),
      );
    });

    it.each<[string, unknown, (string | number)[], string]>([
      ['constructor at the top', { constructor: { a: 1 } }, ['body', 'constructor'], 'extra_forbidden'],
      [
        'constructor in a request object',
        { inner: { constructor: {} } },
        ['body', 'inner', 'constructor'],
        'extra_forbidden',
      ],
      [
        'constructor under an unknown property',
        { other: { constructor: { a: 1 } } },
        ['body', 'other', 'constructor'],
        'extra_forbidden',
      ],
      ['constructor in a map', { labels: { constructor: { a: 1 } } }, ['body', 'labels'], 'value_error'],
      ['__proto__ at the top', JSON.parse('{"__proto__": {"count": 1}}'), ['body', '__proto__'], 'extra_forbidden'],
      [
        '__proto__ in a request object',
        JSON.parse('{"inner": {"__proto__": {"n": "x"}}}'),
        ['body', 'inner', '__proto__'],
        'extra_forbidden',
      ],
      ['__proto__ in a map', JSON.parse('{"labels": {"__proto__": "x"}}'), ['body', 'labels'], 'value_error'],
    ])('refuses %s with a 422, never a crash', (_name, body, loc, type) => {
      expect(issuesOf(body)).toContainEqual(issue(loc, type));
    });

    it('ignores them in a query string, like any unknown parameter', () => {
      const query = pipe.transform(
        { count: '3', valueOf: '1', constructor: 'x' },
        { type: 'query', metatype: BodyDto },
      );
      expect(query).toEqual({ count: 3 });
    });
  });
});

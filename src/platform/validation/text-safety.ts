/**
 * What PostgreSQL cannot store must be refused before it gets there: a NUL in text or JSONB, or a
 * lone UTF-16 surrogate (JSONB refuses `\ud800`), fails the statement, and an admission statement
 * carries a batch of requests, so one such value would fail the others with it. Nesting is bounded
 * too: the validation code walks a body recursively, and a body nested 20,000 levels deep overflowed
 * the stack (a 500). The walk here is iterative, so any depth is safe to measure.
 */

/** Deeper than any request of this API needs (a client secret body is 4 levels deep). */
export const MAX_JSON_DEPTH = 32;

const UNSAFE_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isUnsafeText = (text: string): boolean => UNSAFE_TEXT.test(text);

export type TextProblem =
  | { kind: 'too_deep' }
  /** `loc` is the path to the value, or to the object whose key is unsafe. */
  | { kind: 'unsafe_text'; loc: (string | number)[]; inKey: boolean };

/** The first problem of `value` (a parsed JSON document), or null. */
export function findTextProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): TextProblem | null {
  const stack: { value: unknown; loc: (string | number)[] }[] = [{ value, loc: [] }];
  while (stack.length > 0) {
    const { value: item, loc } = stack.pop()!;
    if (typeof item === 'string') {
      if (isUnsafeText(item)) return { kind: 'unsafe_text', loc, inKey: false };
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (loc.length >= maxDepth) return { kind: 'too_deep' };
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], loc: [...loc, i] });
      continue;
    }
    const entries = Object.entries(item);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      if (isUnsafeText(key)) return { kind: 'unsafe_text', loc, inKey: true };
      stack.push({ value: child, loc: [...loc, key] });
    }
  }
  return null;
}

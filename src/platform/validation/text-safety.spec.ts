import { findTextProblem, isUnsafeText } from './text-safety';

describe('isUnsafeText', () => {
  it.each([
    ['a\u0000b', true],
    ['\ud800', true],
    ['x\udfff', true],
    ['\udc00\ud800', true],
    ['😀', false],
    ['plain text, é, 中文', false],
    ['', false],
  ])('%j → %p', (text, unsafe) => expect(isUnsafeText(text)).toBe(unsafe));
});

describe('findTextProblem', () => {
  it('measures any depth without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(findTextProblem(deep)).toEqual({ kind: 'too_deep' });
    let ok: unknown = 'x';
    for (let i = 0; i < 32; i++) ok = [ok];
    expect(findTextProblem(ok)).toBeNull();
  });

  it('finds the first unsafe value or key with its loc', () => {
    expect(findTextProblem({ a: [1, { b: 'x\u0000' }] })).toEqual({
      kind: 'unsafe_text',
      loc: ['a', 1, 'b'],
      inKey: false,
    });
    expect(findTextProblem({ m: { '\ud800': 'v' } })).toEqual({ kind: 'unsafe_text', loc: ['m'], inKey: true });
    expect(findTextProblem({ m: { k: '😀' } })).toBeNull();
  });
});

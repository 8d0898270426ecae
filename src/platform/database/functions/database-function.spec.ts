import { databaseFunction, revisedFunction } from './database-function';

describe('revisedFunction', () => {
  const base = databaseFunction('f(int)', 'CREATE FUNCTION f(p int) AS $$ SELECT 1; SELECT 2; $$');

  it('applies each edit in turn to the version before', () => {
    const next = revisedFunction(base, [
      ['SELECT 1;', 'SELECT 3;'],
      ['SELECT 3; ', ''],
    ]);
    expect(next).toEqual({ name: 'f', signature: 'f(int)', definition: 'CREATE FUNCTION f(p int) AS $$ SELECT 2; $$' });
  });

  it('refuses an edit that misses or would land twice', () => {
    expect(() => revisedFunction(base, [['SELECT 9;', '']])).toThrow(/does not stand once/);
    expect(() => revisedFunction(base, [['SELECT ', '']])).toThrow(/does not stand once/);
  });
});

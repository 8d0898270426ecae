import { DIALECTS } from '.';

describe('the list of dialects', () => {
  it('names each dialect once: the name is its label in metrics, logs and the AsyncAPI document', () => {
    const names = DIALECTS.map((dialect) => dialect.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives each its own path', () => {
    const paths = DIALECTS.map((dialect) => dialect.path);
    expect(new Set(paths).size).toBe(paths.length);
  });
});

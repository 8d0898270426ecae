import { microsToUsd, usdToMicros } from './money';

describe('money', () => {
  it.each([
    ['10.00', 10_000_000],
    ['0.06', 60_000],
    ['0.000001', 1],
    ['7', 7_000_000],
  ])('%s USD is %d micro-dollars', (usd, micros) => {
    expect(usdToMicros(usd)).toBe(micros);
  });

  it.each([
    [10_000_000, '10.000000'],
    [1, '0.000001'],
    [-2_500_000, '-2.500000'],
    [0, '0.000000'],
  ])('%d micro-dollars show as %s', (micros, usd) => {
    expect(microsToUsd(micros)).toBe(usd);
  });
});

import fc from 'fast-check';
import { framesToSeconds, resolveRange } from './usage-range';

describe('resolveRange', () => {
  const now = Date.UTC(2026, 0, 10, 12, 0, 0, 400);

  it('defaults to everything recorded so far', () => {
    expect(resolveRange({}, now)).toEqual({ from: 0, to: now / 1000 - 0.4 + 1 });
  });

  it('keeps what the caller gave', () => {
    expect(resolveRange({ from: 10, to: 20 }, now)).toEqual({ from: 10, to: 20 });
    expect(resolveRange({ to: 20 }, now)).toEqual({ from: 0, to: 20 });
  });

  it('turns a future `from` without `to` into an empty range, not an inverted one', () => {
    const future = now / 1000 + 3600;
    expect(resolveRange({ from: future }, now)).toEqual({ from: future, to: future });
  });
});

describe('framesToSeconds', () => {
  it('prints as the exact decimal frames × 0.08', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (frames) => {
        const exact = (BigInt(frames) * 8n).toString().padStart(3, '0');
        const decimal = `${exact.slice(0, -2)}.${exact.slice(-2)}`.replace(/\.?0+$/, '') || '0';
        expect(String(framesToSeconds(frames))).toBe(decimal);
      }),
    );
  });
});

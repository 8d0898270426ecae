/** Money is integer micro-dollars inside the service; the API shows USD as a 6-place decimal string. */
export const MICROS_PER_USD = 1_000_000;

export function usdToMicros(usd: string): number {
  const [whole, frac = ''] = usd.split('.');
  return Number(whole) * MICROS_PER_USD + Number(frac.padEnd(6, '0'));
}

export function microsToUsd(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  return `${sign}${Math.floor(abs / MICROS_PER_USD)}.${String(abs % MICROS_PER_USD).padStart(6, '0')}`;
}

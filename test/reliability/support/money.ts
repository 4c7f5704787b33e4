/** Money in tests: integers of 0.0001 CNY, never sums of floating-point yuan. */
export const toUnits = (yuan: number): number => Math.round(yuan * 10_000);

export function sumUnits(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export const FINAL = new Set(['success', 'failed', 'refunded']);

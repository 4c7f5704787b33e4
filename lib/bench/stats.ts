/** Small statistics and formatting helpers for the bench report. */

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0–100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** Fixed decimals, no thousands separators (Markdown tables stay aligned by Prettier). */
export function fixed(value: number, decimals = 1): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : 'n/a';
}

export function mib(bytes: number, decimals = 1): string {
  return fixed(bytes / 1024 / 1024, decimals);
}

export function kib(bytes: number, decimals = 0): string {
  return fixed(bytes / 1024, decimals);
}

/** ✅ / ❌ against a target, for the summary tables. */
export function verdict(ok: boolean): string {
  return ok ? '✅ met' : '❌ missed';
}

export function dollars(value: number, decimals = 4): string {
  return `$${value.toFixed(decimals)}`;
}

/**
 * Money is held as integer units of 0.0001 CNY (DESIGN §3 row 13). Yuan appear only at the edges:
 * parsed from decimal strings, printed as JSON numbers. No float arithmetic ever touches an amount.
 */
export const UNITS_PER_YUAN = 10_000;
const FRACTION_DIGITS = 4;
// At most 11 whole digits: every amount then converts to units and back exactly (< 2^53 / 10^4).
const YUAN_PATTERN = /^(\d{1,11})(?:\.(\d{1,4}))?$/;

export class InvalidAmountError extends Error {
  override readonly name = 'InvalidAmountError';
}

/** Parses "12.3456" (or a JS number with at most 4 decimals) into units. Negative amounts are refused. */
export function yuanToUnits(value: string | number): number {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = YUAN_PATTERN.exec(text);
  if (!match) throw new InvalidAmountError(`"${value}" is not an amount in yuan with at most 4 decimals`);
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(FRACTION_DIGITS, '0'));
  const units = whole * UNITS_PER_YUAN + fraction;
  if (!Number.isSafeInteger(units)) throw new InvalidAmountError(`"${value}" is too large`);
  return units;
}

/** Units → yuan as the JSON number whose decimal text is exact (e.g. 12345 → 1.2345). */
export function unitsToYuan(units: number): number {
  assertUnits(units);
  const sign = units < 0 ? '-' : '';
  const abs = Math.abs(units);
  const whole = Math.floor(abs / UNITS_PER_YUAN);
  const fraction = String(abs % UNITS_PER_YUAN).padStart(FRACTION_DIGITS, '0');
  return Number(`${sign}${whole}.${fraction}`);
}

export function assertUnits(units: number): void {
  if (!Number.isSafeInteger(units)) throw new InvalidAmountError(`${units} is not a whole number of money units`);
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  // String(1e-7) is "1e-7": such values are rejected by the pattern, as they should be.
  return String(value);
}

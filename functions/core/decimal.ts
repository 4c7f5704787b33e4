/**
 * Exact decimals for multipliers (resolution, quality) given as text such as "2.25".
 * Kept as a scaled bigint so cost = price × duration × multiplier is computed without floats.
 */
import { namedError } from './named-error.js';
export interface Decimal {
  /** The digits without the point: "2.25" → 225n. */
  readonly scaled: bigint;
  /** Number of digits after the point: "2.25" → 2. */
  readonly scale: number;
}

const DECIMAL_PATTERN = /^(\d{1,9})(?:\.(\d{1,6}))?$/;

export class InvalidDecimalError extends namedError('InvalidDecimalError') {}

export function parseDecimal(value: string | number): Decimal {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) throw new InvalidDecimalError(`"${value}" is not a non-negative decimal with at most 6 decimals`);
  const fraction = match[2] ?? '';
  return { scaled: BigInt(`${match[1]}${fraction}`), scale: fraction.length };
}

export function decimalToNumber(decimal: Decimal): number {
  return Number(decimal.scaled) / 10 ** decimal.scale;
}

export function isZero(decimal: Decimal): boolean {
  return decimal.scaled === 0n;
}

/** units × decimal, rounded half up to a whole unit (docs/money-and-ledger.md, "Minor units"). */
export function multiplyUnits(units: bigint, decimal: Decimal): bigint {
  const denominator = 10n ** BigInt(decimal.scale);
  return divideRoundHalfUp(units * decimal.scaled, denominator);
}

export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (numerator < 0n || denominator <= 0n) throw new RangeError('only non-negative amounts are rounded here');
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/**
 * Money is held as integer units of 0.0001 CNY (docs/money-and-ledger.md, "Minor units"). Yuan appear only at the edges:
 * parsed from decimal strings, printed as JSON numbers. No float arithmetic ever touches an amount.
 */
import { namedError } from './named-error.js';
export const UNITS_PER_YUAN = 10_000;
const FRACTION_DIGITS = 4;
// At most 11 whole digits: every amount then converts to units and back exactly (< 2^53 / 10^4).
const YUAN_PATTERN = /^(\d{1,11})(?:\.(\d{1,4}))?$/;

/**
 * The most an account may hold, and so the most one top-up may add: 10^9 CNY (10^13 units). Every amount
 * within it prints exactly as a JSON number (14 significant digits), and the sum of two such amounts stays far
 * inside Number.MAX_SAFE_INTEGER units, so no write checked against it can leave a balance the code cannot read.
 */
export const MAX_BALANCE_YUAN = 1_000_000_000;
export const MAX_BALANCE_UNITS = MAX_BALANCE_YUAN * UNITS_PER_YUAN;

export class InvalidAmountError extends namedError('InvalidAmountError') {}

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

/** Yuan text → units, refused past MAX_BALANCE_UNITS (`what` names the amount in the message). */
export function boundedYuanToUnits(value: string, what: string): number {
  const units = yuanToUnits(value);
  if (units > MAX_BALANCE_UNITS) {
    throw new InvalidAmountError(`${what} must be at most ${MAX_BALANCE_YUAN.toLocaleString('en-US')} CNY`);
  }
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

/**
 * A stored balance in yuan, for display; never throws. A balance beyond ±MAX_BALANCE_UNITS (no write of ours makes
 * one, but a refund can land after a top-up to the maximum, and older data may hold anything, even a number past
 * 2^53 that arrives as a bigint) shows as the bound: the account stays readable, and charges still compare the
 * stored value exactly in DynamoDB. The admin CLI's account:show prints the stored value as it is.
 */
export function balanceToYuan(stored: number | bigint): number {
  const units = Math.floor(Number(stored));
  return unitsToYuan(Math.min(Math.max(units, -MAX_BALANCE_UNITS), MAX_BALANCE_UNITS));
}

/** Units as exact yuan text whatever their size (a stored balance may be past 2^53 and arrive as a bigint). */
export function unitsToYuanText(units: number | bigint): string {
  if (typeof units === 'number' && !Number.isInteger(units)) return String(units / UNITS_PER_YUAN);
  const big = BigInt(units);
  const perYuan = BigInt(UNITS_PER_YUAN);
  const abs = big < 0n ? -big : big;
  const fraction = (abs % perYuan).toString().padStart(FRACTION_DIGITS, '0').replace(/0+$/, '');
  return `${big < 0n ? '-' : ''}${abs / perYuan}${fraction ? `.${fraction}` : ''}`;
}

export function assertUnits(units: number): void {
  if (!Number.isSafeInteger(units)) throw new InvalidAmountError(`${units} is not a whole number of money units`);
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  // String(1e-7) is "1e-7": such values are rejected by the pattern, as they should be.
  return String(value);
}

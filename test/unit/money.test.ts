/** Money in integer units of 0.0001 CNY and exact decimal multipliers (docs/money-and-ledger.md, "Minor units"). */
import { describe, expect, it } from 'vitest';
import {
  decimalToNumber,
  divideRoundHalfUp,
  InvalidDecimalError,
  isZero,
  multiplyUnits,
  parseDecimal,
} from '../../functions/core/decimal.js';
import {
  assertUnits,
  InvalidAmountError,
  UNITS_PER_YUAN,
  unitsToYuan,
  yuanToUnits,
} from '../../functions/core/money.js';

describe('yuanToUnits', () => {
  it('has 10,000 units per yuan', () => {
    expect(UNITS_PER_YUAN).toBe(10_000);
  });

  it.each([
    ['0', 0],
    ['1', 10_000],
    ['4.2', 42_000],
    ['1.2345', 12_345],
    ['0.0001', 1],
    ['12.3', 123_000],
    ['0.60', 6_000],
    [' 7.5 ', 75_000],
    ['007.5', 75_000],
    ['999999.9999', 9_999_999_999],
    ['99999999999.9999', 999_999_999_999_999],
  ])('parses the text %j', (text, units) => {
    expect(yuanToUnits(text)).toBe(units);
  });

  it.each([
    [0, 0],
    [1, 10_000],
    [4.2, 42_000],
    [0.3, 3_000],
    [1.2345, 12_345],
    [0.0001, 1],
    [100, 1_000_000],
  ])('parses the number %s', (value, units) => {
    expect(yuanToUnits(value)).toBe(units);
  });

  it.each([
    ['more than 4 decimals (text)', '1.23456'],
    ['more than 4 decimals (number)', 1.23456],
    ['a float artefact', 0.1 + 0.2],
    ['a negative text', '-1'],
    ['a negative number', -1],
    ['a negative fraction', '-0.5'],
    ['an exponent (text)', '1e3'],
    ['an upper-case exponent', '1E2'],
    ['a large number printed with an exponent', 1e21],
    ['a small number printed with an exponent', 1e-7],
    ['empty text', ''],
    ['a bare fraction', '.5'],
    ['a trailing point', '1.'],
    ['a comma', '1,5'],
    ['a plus sign', '+1'],
    ['hex', '0x10'],
    ['words', 'ten'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['13 whole digits', '1234567890123'],
  ])('rejects %s', (_label, value) => {
    expect(() => yuanToUnits(value)).toThrow(InvalidAmountError);
  });

  it.each(['100000000000', '900719925474.0992', '999999999999.9999'])(
    'rejects %s: at most 11 whole digits, so units convert back to yuan exactly',
    (text) => {
      expect(() => yuanToUnits(text)).toThrow(InvalidAmountError);
    },
  );

  it('names the amount in its message', () => {
    expect(() => yuanToUnits('1.23456')).toThrow('"1.23456" is not an amount in yuan with at most 4 decimals');
  });
});

describe('unitsToYuan', () => {
  it('unitsToYuan(12345) === 1.2345', () => {
    expect(unitsToYuan(12_345)).toBe(1.2345);
  });

  it.each([
    [0, 0, '0'],
    [1, 0.0001, '0.0001'],
    [7, 0.0007, '0.0007'],
    [10, 0.001, '0.001'],
    [42_000, 4.2, '4.2'],
    [10_000, 1, '1'],
    [30_000, 3, '3'],
    [79_500, 7.95, '7.95'],
    [123_456_789, 12_345.6789, '12345.6789'],
    [-12_345, -1.2345, '-1.2345'],
    [-5, -0.0005, '-0.0005'],
  ])('%s units → %s yuan (printed %s)', (units, yuan, text) => {
    expect(unitsToYuan(units)).toBe(yuan);
    expect(String(unitsToYuan(units))).toBe(text);
  });

  it.each([1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('rejects %s units', (units) => {
    expect(() => unitsToYuan(units)).toThrow(InvalidAmountError);
  });

  it('assertUnits accepts safe integers only', () => {
    expect(() => assertUnits(0)).not.toThrow();
    expect(() => assertUnits(-3)).not.toThrow();
    expect(() => assertUnits(Number.MAX_SAFE_INTEGER)).not.toThrow();
    expect(() => assertUnits(0.5)).toThrow(InvalidAmountError);
  });
});

describe('round trips', () => {
  it('units → yuan → units for every amount up to 2 yuan', () => {
    const broken: number[] = [];
    for (let units = 0; units <= 20_000; units += 1) {
      if (yuanToUnits(unitsToYuan(units)) !== units) broken.push(units);
    }
    expect(broken).toEqual([]);
  });

  it('units → yuan → units for amounts up to 10^15 units (100 billion yuan)', () => {
    let units = 1;
    while (units < 1e15) {
      for (const candidate of [units - 1, units, units + 1, units * 3 + 7]) {
        if (candidate < 1e15) expect(yuanToUnits(unitsToYuan(candidate))).toBe(candidate);
      }
      units = units * 7 + 3;
    }
  });

  it.each(['0.0001', '0.5', '1.2345', '4.2', '12345.6789', '99999999999.9999'])(
    'yuan text %s → units → the same yuan number',
    (text) => {
      expect(String(unitsToYuan(yuanToUnits(text)))).toBe(text);
    },
  );
});

describe('parseDecimal', () => {
  it.each([
    ['2.25', 225n, 2],
    ['1', 1n, 0],
    ['0', 0n, 0],
    ['0.000001', 1n, 6],
    ['1.33333', 133_333n, 5],
    ['0.50', 50n, 2],
    [' 4 ', 4n, 0],
    ['999999999.999999', 999_999_999_999_999n, 6],
  ])('%j → %s × 10^-%s', (text, scaled, scale) => {
    expect(parseDecimal(text)).toEqual({ scaled, scale });
  });

  it('parses a number', () => {
    expect(parseDecimal(1.5)).toEqual({ scaled: 15n, scale: 1 });
  });

  it.each(['-1', '1.1234567', '1e3', '', '.5', '1.', 'abc', '1234567890', 1e-7, -2])('rejects %j', (value) => {
    expect(() => parseDecimal(value)).toThrow(InvalidDecimalError);
  });

  it('decimalToNumber and isZero', () => {
    expect(decimalToNumber(parseDecimal('2.25'))).toBe(2.25);
    expect(decimalToNumber(parseDecimal('0.000001'))).toBe(0.000001);
    expect(isZero(parseDecimal('0'))).toBe(true);
    expect(isZero(parseDecimal('0.000'))).toBe(true);
    expect(isZero(parseDecimal('0.000001'))).toBe(false);
  });
});

describe('multiplyUnits and divideRoundHalfUp', () => {
  it.each([
    [10n, '0.5', 5n],
    [5n, '0.5', 3n], // 2.5 → 3 (half up)
    [3n, '0.5', 2n], // 1.5 → 2
    [1n, '0.5', 1n], // 0.5 → 1
    [1n, '0.499999', 0n],
    [7n, '1', 7n],
    [0n, '2.25', 0n],
    [30_000n, '2.25', 67_500n],
    [30_000n, '1.33333', 40_000n], // 39999.9 → 40000
    [50n, '1.15', 58n], // 57.5 → 58
    [10n ** 20n, '1.5', 15n * 10n ** 19n],
  ])('%s × %s = %s', (units, decimal, expected) => {
    expect(multiplyUnits(units, parseDecimal(decimal))).toBe(expected);
  });

  it('rounds half up for every numerator and denominator in a grid', () => {
    const broken: string[] = [];
    for (let denominator = 1n; denominator <= 40n; denominator += 1n) {
      for (let numerator = 0n; numerator <= 400n; numerator += 1n) {
        const quotient = numerator / denominator;
        const expected = (numerator % denominator) * 2n >= denominator ? quotient + 1n : quotient;
        if (divideRoundHalfUp(numerator, denominator) !== expected) broken.push(`${numerator}/${denominator}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each([
    [5n, 2n, 3n],
    [4n, 2n, 2n],
    [1n, 3n, 0n],
    [2n, 3n, 1n],
    [0n, 5n, 0n],
  ])('divideRoundHalfUp(%s, %s) = %s', (numerator, denominator, expected) => {
    expect(divideRoundHalfUp(numerator, denominator)).toBe(expected);
  });

  it('refuses negative amounts and non-positive denominators', () => {
    expect(() => divideRoundHalfUp(-1n, 2n)).toThrow(RangeError);
    expect(() => divideRoundHalfUp(1n, 0n)).toThrow(RangeError);
    expect(() => divideRoundHalfUp(1n, -2n)).toThrow(RangeError);
    expect(() => multiplyUnits(-10n, parseDecimal('0.5'))).toThrow(RangeError);
  });
});

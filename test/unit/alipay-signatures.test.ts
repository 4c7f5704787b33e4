/**
 * Alipay's RSA2 notifications, property-tested (docs/money-and-ledger.md, "Top-ups"): any notification signed as
 * Alipay's documents say verifies with the official SDK (through our adapter), and changing, adding or removing
 * any one field, or the signature, makes it refused. Also the top-up amount's rules: whole fen within the bounds.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AlipayGateway } from '../../functions/adapters/alipay/alipay-gateway.js';
import { InvalidRequestError } from '../../functions/core/api-error.js';
import { gatewayAmount, parseTopupAmount, sameAmount } from '../../functions/core/topup.js';
import { rsa2Sign, signingString } from '../../lib/dev/simulators/alipay/signing.js';

const keys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const alipay = keys();
const other = keys();
const gateway = new AlipayGateway({
  gatewayUrl: 'http://127.0.0.1:9/gateway.do',
  appId: '2021000000000001',
  appPrivateKey: keys().privateKey,
  alipayPublicKey: alipay.publicKey,
  timeoutMs: 1_000,
});

/** A notification signed as Alipay signs one: every field but sign and sign_type, sorted, raw. */
function signed(fields: Record<string, string>, privateKey = alipay.privateKey): Record<string, string> {
  return { ...fields, sign_type: 'RSA2', sign: rsa2Sign(signingString(fields, []), privateKey) };
}

/** Field names and values as a notification may carry them: any text, `%`, `&` and `=` included, never empty. */
const fieldName = fc.stringMatching(/^[a-z][a-z_]{0,15}$/).filter((name) => name !== 'sign' && name !== 'sign_type');
const fieldValue = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' });
const notification = fc.dictionary(fieldName, fieldValue, { minKeys: 1, maxKeys: 12 });

describe("Alipay's notifications, verified with the SDK", () => {
  it('a notification signed by Alipay verifies, whatever its fields hold', async () => {
    await fc.assert(
      fc.asyncProperty(notification, async (fields) => {
        expect(await gateway.verifyNotification(signed(fields))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('every field changed, added or removed, and the signature itself, is refused', async () => {
    await fc.assert(
      fc.asyncProperty(notification, fc.nat(), fieldValue, async (fields, pick, replacement) => {
        const genuine = signed(fields);
        const names = Object.keys(genuine);
        const name = names[pick % names.length]!;
        if (genuine[name] === replacement) return;
        const { [name]: _removed, ...without } = genuine;
        expect(await gateway.verifyNotification({ ...genuine, [name]: replacement }), `changed ${name}`).toBe(false);
        if (name !== 'sign_type') expect(await gateway.verifyNotification(without), `removed ${name}`).toBe(false);
        const added = `x${name}`;
        if (!(added in genuine)) {
          expect(await gateway.verifyNotification({ ...genuine, [added]: replacement }), `added ${added}`).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a notification signed by another key is refused', async () => {
    await fc.assert(
      fc.asyncProperty(notification, async (fields) => {
        expect(await gateway.verifyNotification(signed(fields, other.privateKey))).toBe(false);
      }),
      { numRuns: 20 },
    );
  });
});

describe('the amount of a top-up', () => {
  const bounds = { minUnits: 10_000, maxUnits: 500_000_000 };

  it('takes any whole number of fen within the bounds, and writes it back as Alipay does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 5_000_000 }), (fen) => {
        const amount = fen / 100;
        const units = parseTopupAmount({ amount }, bounds);
        expect(units).toBe(fen * 100);
        expect(sameAmount(units, gatewayAmount(units))).toBe(true);
        expect(Number(gatewayAmount(units))).toBe(amount);
      }),
    );
  });

  it('refuses a third decimal, a string, and anything outside the bounds, naming the field and the bounds', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 1, max: 9 }).map((tenth) => 10 + tenth / 1000),
          fc.integer({ min: -1_000_000, max: 99 }).map((fen) => fen / 100),
          fc.integer({ min: 5_000_001, max: 1e9 }).map((fen) => fen / 100),
          fc.string(),
        ),
        (amount) => {
          expect(() => parseTopupAmount({ amount }, bounds)).toThrow(InvalidRequestError);
          expect(() => parseTopupAmount({ amount }, bounds)).toThrow(/amount .*(1 to 50000 CNY|2 decimals)/);
        },
      ),
    );
  });

  it("compares Alipay's amount text exactly, never as a float", () => {
    expect(sameAmount(1_000_000, '100.00')).toBe(true);
    expect(sameAmount(1_000_000, '100')).toBe(true);
    expect(sameAmount(1_000_000, '100.001')).toBe(false);
    expect(sameAmount(1_000_000, '99.99')).toBe(false);
    expect(sameAmount(1_000_000, '1e2')).toBe(false);
    expect(sameAmount(1_000_000, undefined)).toBe(false);
  });
});

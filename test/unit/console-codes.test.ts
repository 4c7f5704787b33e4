/** Top-up codes and the console's key rules (docs/console.md): pure parts. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyHint } from '../../functions/core/api-key.js';
import { CreateKeySchema, parseBody, toKeyView, UpdateKeySchema } from '../../functions/core/console-key.js';
import { generateRedeemCode, hashRedeemCode, normaliseRedeemCode } from '../../functions/core/redeem-code.js';

describe('top-up codes', () => {
  it('are 16 unambiguous characters in four groups, normalised whatever the case, spaces or dashes', () => {
    const codes = new Set(Array.from({ length: 200 }, generateRedeemCode));
    expect(codes.size).toBe(200);
    for (const code of codes) {
      expect(code).toMatch(/^VGS(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
      const canonical = normaliseRedeemCode(code)!;
      expect(normaliseRedeemCode(` ${code.toLowerCase().replaceAll('-', ' ')} `)).toBe(canonical);
      expect(hashRedeemCode(canonical)).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('refuse anything else as not a code', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const normalised = normaliseRedeemCode(text);
        if (normalised !== undefined) expect(normalised).toMatch(/^VGS[0-9A-HJKMNP-TV-Z]{16}$/);
      }),
    );
    expect(normaliseRedeemCode('VGS-IIII-LLLL-OOOO-UUUU')).toBeUndefined();
    expect(normaliseRedeemCode('VGS-0000-0000-0000-000')).toBeUndefined();
  });
});

describe('console key bodies', () => {
  it('take a name, an optional quota in yuan (null: none) and a rate; name the field that is wrong', () => {
    expect(parseBody(CreateKeySchema, { name: ' ci ', quota: 12.3456 })).toEqual({ name: 'ci', quota: 12.3456 });
    expect(parseBody(CreateKeySchema, { name: 'ci', quota: null })).toEqual({ name: 'ci', quota: null });
    expect(() => parseBody(CreateKeySchema, { name: 'ci', quota: -1 })).toThrow(/quota: quota must not be negative/);
    expect(() => parseBody(CreateKeySchema, { name: 'x'.repeat(65) })).toThrow(/at most 64/);
    expect(() => parseBody(CreateKeySchema, { name: 'ci', rate_limit_per_second: 1.5 })).toThrow(/whole number/);
    expect(() => parseBody(CreateKeySchema, 'ci')).toThrow();
    expect(() => parseBody(UpdateKeySchema, { status: 'paused' })).toThrow(/"active" or "disabled"/);
  });

  it('show a stored key in yuan, without its hash', () => {
    const view = toKeyView(
      {
        key_hash: 'h',
        key_id: 'key_1',
        account_id: 'a',
        status: 'active',
        quota_units: 50_000,
        quota_remaining_units: 20_000,
        spent_units: 30_000,
        created_at: '2026-11-26T00:00:00.000Z',
      },
      10,
    );
    expect(view).toEqual({
      key_id: 'key_1',
      key_hint: 'key_1',
      name: 'key_1',
      status: 'active',
      quota: 5,
      spent: 3,
      rate_limit_per_second: 10,
      rate_is_default: true,
      created_at: '2026-11-26T00:00:00.000Z',
      last_used_at: null,
      deleted_at: null,
    });
    expect(keyHint('bc_a1b2XXXXXXXXXXXXXXXXXXXX9f3c')).toBe('bc_a1b2…9f3c');
  });
});

/**
 * API keys as the console shows and changes them (docs/console.md): the request schemas (also the OpenAPI
 * document's), the view, and the rules an owner's change must keep. Money in yuan outside, units inside.
 */
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import { describeIssue } from './generation-request.js';
import { MAX_BALANCE_UNITS, MAX_BALANCE_YUAN, unitsToYuan, yuanToUnits } from './money.js';
import type { ApiKeyRecord } from './ports/accounts.js';

/** Keys one account may hold: enough for every environment and teammate, bounded so a list stays one read. */
export const MAX_KEYS_PER_ACCOUNT = 50;

const quota = v.nullable(
  v.pipe(
    v.number('quota must be a number of CNY, or null for no cap'),
    v.minValue(0, 'quota must not be negative'),
    v.maxValue(MAX_BALANCE_YUAN, `quota must be at most ${MAX_BALANCE_YUAN.toLocaleString('en-US')} CNY`),
    v.check((value) => {
      try {
        return yuanToUnits(value) <= MAX_BALANCE_UNITS;
      } catch {
        return false;
      }
    }, 'quota must have at most 4 decimals'),
    v.description('Spend cap of the key in CNY; null: no cap'),
  ),
);
const name = v.pipe(
  v.string('name must be text'),
  v.trim(),
  v.minLength(1, 'name must not be empty'),
  v.maxLength(64, 'name must be at most 64 characters'),
);

export const CreateKeySchema = v.strictObject({
  name,
  quota: v.optional(quota),
  rate_limit_per_second: v.optional(
    v.pipe(
      v.number('rate_limit_per_second must be a whole number'),
      v.integer('rate_limit_per_second must be a whole number'),
      v.minValue(1, 'rate_limit_per_second must be at least 1'),
      v.description('Requests per second; at most the service default, which applies when absent'),
    ),
  ),
});

export const UpdateKeySchema = v.pipe(
  v.strictObject({
    name: v.optional(name),
    status: v.optional(v.picklist(['active', 'disabled'], 'status must be "active" or "disabled"')),
    quota: v.optional(quota),
  }),
  v.check((body) => Object.keys(body).length > 0, 'send at least one of name, status, quota'),
);

export const KeyViewSchema = v.strictObject({
  key_id: v.string(),
  key_hint: v.pipe(
    v.string(),
    v.description('The key as its owner can recognise it, bc_a1b2…9f3c; key_id for keys made before hints were kept'),
  ),
  name: v.string(),
  status: v.pipe(
    v.picklist(['active', 'disabled', 'deleted']),
    v.description('deleted: revoked for good; its spend and its ledger entries stay'),
  ),
  quota: v.nullable(v.number()),
  spent: v.pipe(v.number(), v.description('CNY charged through this key, net of refunds')),
  rate_limit_per_second: v.pipe(v.number(), v.description('Requests per second: its own, or the service default')),
  rate_is_default: v.pipe(v.boolean(), v.description('true: the key has no rate of its own')),
  created_at: v.string(),
  last_used_at: v.nullable(v.pipe(v.string(), v.description('When the key last paid for a task'))),
  deleted_at: v.nullable(v.string()),
});
export type KeyView = v.InferOutput<typeof KeyViewSchema>;

export const NewKeyViewSchema = v.strictObject({
  ...KeyViewSchema.entries,
  key: v.pipe(v.string(), v.description('The key itself (bc_…): shown this once, never stored')),
});

/** The key as its owner sees it; `defaultRatePerSecond` is what a key without its own rate gets. */
export function toKeyView(record: ApiKeyRecord, defaultRatePerSecond: number): KeyView {
  return {
    key_id: record.key_id,
    key_hint: record.key_hint ?? record.key_id,
    name: record.name ?? record.key_id,
    status: record.status,
    quota: record.quota_units === undefined ? null : unitsToYuan(record.quota_units),
    spent: unitsToYuan(record.spent_units),
    rate_limit_per_second: record.rate_per_second ?? defaultRatePerSecond,
    rate_is_default: record.rate_per_second === undefined,
    created_at: record.created_at,
    last_used_at: record.last_used_at ?? null,
    deleted_at: record.deleted_at ?? null,
  };
}

/** The body checked against `schema`: a 400 naming the first problem. */
export function parseBody<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  const parsed = v.safeParse(schema, body);
  if (!parsed.success) throw new InvalidRequestError(describeIssue(parsed.issues[0]));
  return parsed.output;
}

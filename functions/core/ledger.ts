/**
 * The ledger (docs/money-and-ledger.md, "Ledger"): every balance movement is one immutable entry, written in the movement's
 * own transaction, with an id from its cause so that it happens at most once. Amounts are signed units
 * inside; yuan in the API. The valibot schemas of GET /api/v1/account/transactions live here (OpenAPI).
 */
import * as v from 'valibot';
import { InvalidRequestError } from './api-error.js';
import { unitsToYuan } from './money.js';

export const LEDGER_ENTRY_TYPES = ['charge', 'refund', 'topup', 'adjustment'] as const;
export type LedgerEntryType = (typeof LEDGER_ENTRY_TYPES)[number];

/**
 * As stored: `amount_units` is signed (a charge is negative); `listed_at` (the cause's time, then the entry id)
 * orders the listing. No single item orders commits any more (docs/money-and-ledger.md, "Listing order"): entries
 * of movements that overlapped in time may be listed in another order than they committed.
 */
export interface LedgerEntry {
  account_id: string;
  entry_id: string;
  type: LedgerEntryType;
  amount_units: number;
  task_id?: string;
  created_at: string;
  listed_at: string;
}

/** The id of each cause: one task is charged once and refunded once; a top-up once per request id. */
export const ledgerEntryId = {
  charge: (taskId: string) => `charge:${taskId}`,
  refund: (taskId: string) => `refund:${taskId}`,
  topup: (requestId: string) => `topup:${requestId}`,
  /** A top-up code redeemed in the console (type `topup`): a code adds once, to one account. */
  redeem: (codeId: string) => `redeem:${codeId}`,
  /** An operator's correction (balance:adjust). */
  adjustment: (requestId: string) => `adjustment:${requestId}`,
  /** The balance an account starts with (account:create), or held before the ledger (ledger:backfill). */
  opening: () => 'opening',
} as const;

export function ledgerEntry(
  accountId: string,
  entryId: string,
  type: LedgerEntryType,
  amountUnits: number,
  createdAt: string,
  taskId?: string,
): LedgerEntry {
  return {
    account_id: accountId,
    entry_id: entryId,
    type,
    amount_units: amountUnits,
    ...(taskId !== undefined && { task_id: taskId }),
    created_at: createdAt,
    listed_at: `${createdAt}#${entryId}`,
  };
}

// ------------------------------------------------------------------ GET /api/v1/account/transactions

export const TRANSACTIONS_DEFAULT_LIMIT = 20;
export const TRANSACTIONS_MAX_LIMIT = 100;

/** The query string: `limit` 1–100 (default 20), `cursor` as a previous page's `next_cursor` gave it. */
export const ListTransactionsQuerySchema = v.strictObject({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, `limit must be a whole number from 1 to ${TRANSACTIONS_MAX_LIMIT}`),
      v.transform(Number),
      v.minValue(1, `limit must be a whole number from 1 to ${TRANSACTIONS_MAX_LIMIT}`),
      v.maxValue(TRANSACTIONS_MAX_LIMIT, `limit must be a whole number from 1 to ${TRANSACTIONS_MAX_LIMIT}`),
    ),
  ),
  cursor: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, 'cursor must not be empty: pass next_cursor from the previous page as it is'),
      v.maxLength(2048, 'invalid cursor: pass next_cursor from the previous page as it is'),
    ),
  ),
});

export const TransactionViewSchema = v.object({
  id: v.pipe(v.string(), v.description('From its cause: charge:<task_id>, refund:<task_id>, topup:<request id>')),
  type: v.picklist(LEDGER_ENTRY_TYPES),
  amount: v.pipe(v.number(), v.description('CNY, signed: a charge is negative')),
  task_id: v.nullable(v.string()),
  created_at: v.string(),
});
export type TransactionView = v.InferOutput<typeof TransactionViewSchema>;

export const TransactionsPageSchema = v.object({
  items: v.array(TransactionViewSchema),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('null on the last page')),
});
export type TransactionsPage = v.InferOutput<typeof TransactionsPageSchema>;

export function parseTransactionsQuery(query: Record<string, string | undefined> | undefined): {
  limit: number;
  cursor?: string;
} {
  const parsed = v.safeParse(ListTransactionsQuerySchema, query ?? {});
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue.path?.[0]?.key;
    throw new InvalidRequestError(
      issue.type === 'strict_object' ? `unknown query parameter "${String(field)}"` : issue.message,
    );
  }
  return {
    limit: parsed.output.limit ?? TRANSACTIONS_DEFAULT_LIMIT,
    ...(parsed.output.cursor !== undefined && { cursor: parsed.output.cursor }),
  };
}

export function toTransactionView(entry: LedgerEntry): TransactionView {
  return {
    id: entry.entry_id,
    type: entry.type,
    amount: unitsToYuan(entry.amount_units),
    task_id: entry.task_id ?? null,
    created_at: entry.created_at,
  };
}

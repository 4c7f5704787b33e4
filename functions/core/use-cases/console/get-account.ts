/**
 * GET /api/v1/console/account. Primary course: read the account's balance and, from its ledger, what it
 * spent this calendar month (UTC: charges less refunds) and how many tasks it paid for; answer both in yuan,
 * so every figure on the overview reconciles with the transactions page.
 */
import * as v from 'valibot';
import { NotFoundError } from '../../api-error.js';
import { balanceToYuan, unitsToYuan } from '../../money.js';
import type { AccountRepository } from '../../ports/accounts.js';
import type { MonthlySpend } from '../../ports/console.js';
import type { ConsoleCaller } from './console-caller.js';

export const ConsoleAccountSchema = v.strictObject({
  account_id: v.string(),
  balance: v.pipe(v.number(), v.description('CNY')),
  currency: v.literal('CNY'),
  spent_this_month: v.pipe(v.number(), v.description('CNY since the 1st of this month (UTC), net of refunds')),
  month_start: v.string(),
  tasks_this_month: v.number(),
});
export type ConsoleAccount = v.InferOutput<typeof ConsoleAccountSchema>;

export interface GetAccountDeps {
  accounts: AccountRepository;
  spend: MonthlySpend;
  now: () => Date;
}

export async function getConsoleAccount(caller: ConsoleCaller, deps: GetAccountDeps): Promise<ConsoleAccount> {
  const now = deps.now();
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
  const [account, month] = await Promise.all([
    deps.accounts.get(caller.accountId),
    deps.spend.since(caller.accountId, monthStart),
  ]);
  if (!account) throw new NotFoundError('this sign-in has no account: contact support');
  return {
    account_id: caller.accountId,
    balance: balanceToYuan(account.balance_units),
    currency: 'CNY',
    spent_this_month: unitsToYuan(month.spentUnits),
    month_start: monthStart,
    tasks_this_month: month.charges,
  };
}

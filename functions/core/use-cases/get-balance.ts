/** GET /api/v1/account/balance (docs/api-contract.md, "Routes"). */
import { NotFoundError } from '../api-error.js';
import { balanceToYuan } from '../money.js';
import type { AccountRepository } from '../ports/accounts.js';
import type { Caller } from './authenticate.js';

export interface BalanceView {
  balance: number;
  currency: 'CNY';
}

export async function getBalance(caller: Caller, accounts: AccountRepository): Promise<BalanceView> {
  const account = await accounts.get(caller.accountId);
  if (!account) throw new NotFoundError('the account of this API key does not exist');
  // Never a 500 for a stored balance out of bounds: it shows as the bound (money.ts).
  return { balance: balanceToYuan(account.balance_units), currency: 'CNY' };
}

/** GET /api/v1/account/balance (spec §4.3). */
import { NotFoundError } from '../api-error.js';
import { unitsToYuan } from '../money.js';
import type { AccountRepository } from '../ports/accounts.js';
import type { Caller } from './authenticate.js';

export interface BalanceView {
  balance: number;
  currency: 'CNY';
}

export async function getBalance(caller: Caller, accounts: AccountRepository): Promise<BalanceView> {
  const account = await accounts.get(caller.accountId);
  if (!account) throw new NotFoundError('the account of this API key does not exist');
  return { balance: unitsToYuan(account.balance_units), currency: 'CNY' };
}

/** getBalance: the caller account's balance in yuan. */
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../functions/core/api-error.js';
import { getBalance } from '../../../functions/core/use-cases/get-balance.js';
import { ACCOUNT } from '../../support/task-records.js';
import { CALLER, InMemoryAccounts, OTHER_ACCOUNT } from '../fakes.js';
import { rejection } from '../support.js';

describe('getBalance', () => {
  const accounts = new InMemoryAccounts([{ account_id: ACCOUNT, balance_units: 1_234_567, created_at: 'x' }]);

  it('the balance of the caller account in yuan, currency CNY', async () => {
    expect(await getBalance(CALLER, accounts)).toEqual({ balance: 123.4567, currency: 'CNY' });
  });

  it('an account that does not exist → 404', async () => {
    const error = await rejection(getBalance({ ...CALLER, accountId: OTHER_ACCOUNT }, accounts));
    expect(error).toBeInstanceOf(NotFoundError);
  });
});

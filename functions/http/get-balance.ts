/** GET /api/v1/account/balance */
import { getBalance } from '../core/use-cases/get-balance.js';
import { accountRepository } from '../adapters/wiring/service-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const accounts = accountRepository();

export const handler = authenticatedRoute(async (_event, caller) => ({
  data: await getBalance(await caller, accounts),
}));

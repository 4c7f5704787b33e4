/** GET /api/v1/account/transactions (docs/money-and-ledger.md, "Ledger") */
import { listTransactions } from '../core/use-cases/list-transactions.js';
import { ledgerRepository } from '../adapters/wiring/service-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const ledger = ledgerRepository();

export const handler = authenticatedRoute(async (event, caller) => ({
  data: await listTransactions(caller, event.queryStringParameters, ledger),
}));

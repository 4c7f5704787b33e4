/** GET /api/v1/console/transactions: the ledger, as GET /api/v1/account/transactions shows it. */
import { listTransactions } from '../../core/use-cases/list-transactions.js';
import { ledgerRepository } from '../../adapters/wiring/service-dependencies.js';
import { consoleRoute } from './console-route.js';

const ledger = ledgerRepository();

export const handler = consoleRoute(async (event, caller) => ({
  data: await listTransactions(caller, event.queryStringParameters, ledger),
}));

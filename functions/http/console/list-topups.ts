/** GET /api/v1/console/topups (docs/money-and-ledger.md, "Top-ups") */
import { listTopups } from '../../core/use-cases/topups/list-topups.js';
import { topupStore } from '../../adapters/wiring/topup-store.js';
import { consoleRoute } from './console-route.js';

const topups = topupStore();

export const handler = consoleRoute(async (event, caller) => ({
  data: await listTopups(caller, event.queryStringParameters, topups),
}));

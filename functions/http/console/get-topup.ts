/** GET /api/v1/console/topups/{topup_id} (docs/money-and-ledger.md, "Top-ups") */
import { getTopup } from '../../core/use-cases/topups/get-topup.js';
import { topupDependencies } from '../../adapters/wiring/topup-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = topupDependencies();

export const handler = consoleRoute(async (event, caller) => ({
  data: await getTopup(caller, event.pathParameters?.['topup_id'] ?? '', deps),
}));

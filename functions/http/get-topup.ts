/** GET /api/v1/account/topups/{topup_id} (docs/money-and-ledger.md, "Top-ups") */
import { getTopup } from '../core/use-cases/topups/get-topup.js';
import { topupDependencies } from '../adapters/wiring/topup-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const deps = topupDependencies();

export const handler = authenticatedRoute(async (event, caller) => ({
  data: await getTopup(await caller, event.pathParameters?.['topup_id'] ?? '', deps),
}));

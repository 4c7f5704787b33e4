/** GET /api/v1/account/topups (docs/money-and-ledger.md, "Top-ups") */
import { listTopups } from '../core/use-cases/topups/list-topups.js';
import { topupStore } from '../adapters/wiring/topup-store.js';
import { authenticatedRoute } from './api-handler.js';

const topups = topupStore();

export const handler = authenticatedRoute(async (event, caller) => ({
  data: await listTopups(await caller, event.queryStringParameters, topups),
}));

/** POST /api/v1/account/topups (docs/money-and-ledger.md, "Top-ups") */
import { randomUUID } from 'node:crypto';
import { createTopup } from '../core/use-cases/topups/create-topup.js';
import { topupDependencies } from '../adapters/wiring/topup-dependencies.js';
import { authenticatedRoute, bodyOf } from './api-handler.js';

const deps = { ...topupDependencies(), newId: randomUUID };

export const handler = authenticatedRoute(async (event, caller) => {
  const body = await bodyOf(event, caller);
  return { data: await createTopup(await caller, body, deps) };
});

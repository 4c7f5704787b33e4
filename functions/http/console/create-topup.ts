/** POST /api/v1/console/topups (docs/money-and-ledger.md, "Top-ups") */
import { randomUUID } from 'node:crypto';
import { createTopup } from '../../core/use-cases/topups/create-topup.js';
import { topupDependencies } from '../../adapters/wiring/topup-dependencies.js';
import { consoleBody, consoleRoute } from './console-route.js';

const deps = { ...topupDependencies(), newId: randomUUID };

export const handler = consoleRoute(async (event, caller) => ({
  data: await createTopup(caller, consoleBody(event), deps),
}));

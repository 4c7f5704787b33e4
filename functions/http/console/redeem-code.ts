/** POST /api/v1/console/redeem */
import { redeemCode } from '../../core/use-cases/console/redeem-code.js';
import { redeemCodes } from '../../adapters/wiring/console-dependencies.js';
import { consoleBody, consoleRoute } from './console-route.js';

const deps = { codes: redeemCodes(), now: () => new Date() };

export const handler = consoleRoute(async (event, caller) => ({
  data: await redeemCode(caller, consoleBody(event), deps),
}));

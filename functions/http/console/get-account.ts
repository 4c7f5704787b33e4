/** GET /api/v1/console/account */
import { getConsoleAccount } from '../../core/use-cases/console/get-account.js';
import { monthlySpend } from '../../adapters/wiring/console-dependencies.js';
import { accountRepository } from '../../adapters/wiring/service-dependencies.js';
import { consoleRoute } from './console-route.js';

const deps = { accounts: accountRepository(), spend: monthlySpend(), now: () => new Date() };

export const handler = consoleRoute(async (_event, caller) => ({ data: await getConsoleAccount(caller, deps) }));

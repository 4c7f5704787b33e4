/** GET /api/v1/console/keys: the signed-in account's keys, oldest first, with spend against quota and last use. */
import { toKeyView } from '../../console-key.js';
import type { KeyView } from '../../console-key.js';
import type { ConsoleKeyStore } from '../../ports/console.js';
import type { ConsoleCaller } from './console-caller.js';

export async function listKeys(caller: ConsoleCaller, keys: ConsoleKeyStore): Promise<{ items: KeyView[] }> {
  return { items: (await keys.listByAccount(caller.accountId)).map(toKeyView) };
}

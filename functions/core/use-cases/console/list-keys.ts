/**
 * GET /api/v1/console/keys: the signed-in account's keys, oldest first, each with its hint (bc_a1b2…9f3c), spend
 * against quota, rate as a number and last use; deleted keys too, marked, so their tasks still name them.
 */
import { toKeyView } from '../../console-key.js';
import type { KeyView } from '../../console-key.js';
import type { ConsoleCaller } from './console-caller.js';
import type { KeyDeps } from './key-deps.js';

export async function listKeys(
  caller: ConsoleCaller,
  deps: Pick<KeyDeps, 'keys' | 'defaultRatePerSecond'>,
): Promise<{ items: KeyView[] }> {
  const records = await deps.keys.listByAccount(caller.accountId);
  return { items: records.map((record) => toKeyView(record, deps.defaultRatePerSecond)) };
}

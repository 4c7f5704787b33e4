/** What the console's key use cases are handed: the account's keys, the service's rate per key, the clock. */
import type { ConsoleKeyStore } from '../../ports/console.js';

export interface KeyDeps {
  keys: ConsoleKeyStore;
  /** The service's rate per key: shown for a key without its own; an owner may set a lower one, not a higher. */
  defaultRatePerSecond: number;
  now: () => Date;
}

/** The account's key with this id, deleted ones included; undefined when it has none (another account's too). */
export async function ownKey(deps: Pick<KeyDeps, 'keys'>, accountId: string, keyId: string | undefined) {
  return (await deps.keys.listByAccount(accountId)).find((key) => key.key_id === keyId);
}

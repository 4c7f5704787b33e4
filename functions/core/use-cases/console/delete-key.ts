/**
 * DELETE /api/v1/console/keys/{id}. Primary course: find the key among the account's own (else a 404); mark it
 * deleted, for good (its next request is a 401 and no change brings it back); answer it as stored now. The record
 * stays: its spend, its tasks and its ledger entries keep naming it (docs/console.md, "Keys").
 */
import { NotFoundError } from '../../api-error.js';
import { toKeyView } from '../../console-key.js';
import type { KeyView } from '../../console-key.js';
import type { ConsoleCaller } from './console-caller.js';
import { ownKey } from './key-deps.js';
import type { KeyDeps } from './key-deps.js';

export async function deleteKey(caller: ConsoleCaller, keyId: string | undefined, deps: KeyDeps): Promise<KeyView> {
  const record = await ownKey(deps, caller.accountId, keyId);
  if (!record) throw new NotFoundError(`no key ${keyId ?? ''} in this account`);
  // Deleting twice answers the same: a retried click.
  const deleted = record.status === 'deleted' ? record : await deps.keys.remove(record, deps.now());
  if (!deleted) throw new NotFoundError(`no key ${keyId ?? ''} in this account`);
  return toKeyView(deleted, deps.defaultRatePerSecond);
}

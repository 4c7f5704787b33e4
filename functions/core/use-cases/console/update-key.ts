/**
 * PATCH /api/v1/console/keys/{id}. Primary course: check the body (name, status, quota: at least one); find
 * the key among the account's own (another account's key is a 404, as a missing one; a deleted one a 400); apply the change to
 * the stored key (a disable is refused by the key's next request); answer the key as stored now.
 */
import { InvalidRequestError, NotFoundError } from '../../api-error.js';
import { parseBody, toKeyView, UpdateKeySchema } from '../../console-key.js';
import type { KeyView } from '../../console-key.js';
import { yuanToUnits } from '../../money.js';
import type { KeyChange } from '../../ports/console.js';
import type { ConsoleCaller } from './console-caller.js';
import { ownKey } from './key-deps.js';
import type { KeyDeps } from './key-deps.js';

export async function updateKey(
  caller: ConsoleCaller,
  keyId: string | undefined,
  body: unknown,
  deps: Pick<KeyDeps, 'keys' | 'defaultRatePerSecond'>,
): Promise<KeyView> {
  const request = parseBody(UpdateKeySchema, body);
  const record = await ownKey(deps, caller.accountId, keyId);
  if (!record) throw new NotFoundError(`no key ${keyId ?? ''} in this account`);
  if (record.status === 'deleted') throw deletedKey(keyId);
  const change: KeyChange = {
    ...(request.name !== undefined && { name: request.name }),
    ...(request.status !== undefined && { status: request.status }),
    ...(request.quota !== undefined && { quotaUnits: request.quota === null ? null : yuanToUnits(request.quota) }),
  };
  const updated = await deps.keys.update(record, change);
  if (!updated) throw new NotFoundError(`no key ${keyId ?? ''} in this account`);
  // Deleted between the read and the write: the store's condition refused the change.
  if (updated.status === 'deleted') throw deletedKey(keyId);
  return toKeyView(updated, deps.defaultRatePerSecond);
}

function deletedKey(keyId: string | undefined): InvalidRequestError {
  return new InvalidRequestError(`key ${keyId ?? ''} was deleted: it cannot be changed; make a new key instead`);
}

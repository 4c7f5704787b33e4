/**
 * PATCH /api/v1/console/keys/{id}. Primary course: check the body (name, status, quota: at least one); find
 * the key among the account's own (another account's key is a 404, as a missing one); apply the change to
 * the stored key (a disable is refused by the key's next request); answer the key as stored now.
 */
import { NotFoundError } from '../../api-error.js';
import { parseBody, toKeyView, UpdateKeySchema } from '../../console-key.js';
import type { KeyView } from '../../console-key.js';
import { yuanToUnits } from '../../money.js';
import type { ConsoleKeyStore, KeyChange } from '../../ports/console.js';
import type { ConsoleCaller } from './console-caller.js';

export async function updateKey(
  caller: ConsoleCaller,
  keyId: string | undefined,
  body: unknown,
  keys: ConsoleKeyStore,
): Promise<KeyView> {
  const request = parseBody(UpdateKeySchema, body);
  const record = (await keys.listByAccount(caller.accountId)).find((key) => key.key_id === keyId);
  if (!record) throw new NotFoundError(`no key ${keyId ?? ''} in this account`);
  const change: KeyChange = {
    ...(request.name !== undefined && { name: request.name }),
    ...(request.status !== undefined && { status: request.status }),
    ...(request.quota !== undefined && { quotaUnits: request.quota === null ? null : yuanToUnits(request.quota) }),
  };
  const updated = await keys.update(record, change);
  if (!updated) throw new NotFoundError(`no key ${keyId ?? ''} in this account`);
  return toKeyView(updated);
}

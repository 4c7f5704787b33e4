/**
 * POST /api/v1/console/keys. Primary course: check the body (name, optional quota and rate); refuse past
 * MAX_KEYS_PER_ACCOUNT; make a random `bc_` key and store only its hash, with the account checked usable in
 * the same write; answer the key's view with the plaintext, which is never shown again.
 */
import { randomUUID } from 'node:crypto';
import { InvalidRequestError } from '../../api-error.js';
import { generateApiKey, hashApiKey } from '../../api-key.js';
import { CreateKeySchema, MAX_KEYS_PER_ACCOUNT, parseBody, toKeyView } from '../../console-key.js';
import type { KeyView } from '../../console-key.js';
import { yuanToUnits } from '../../money.js';
import type { ApiKeyRecord } from '../../ports/accounts.js';
import type { ConsoleKeyStore } from '../../ports/console.js';
import type { ConsoleCaller } from './console-caller.js';

export interface CreateKeyDeps {
  keys: ConsoleKeyStore;
  /** The service's rate per key: an owner may set a lower one, not a higher. */
  defaultRatePerSecond: number;
  now: () => Date;
}

export async function createKey(
  caller: ConsoleCaller,
  body: unknown,
  deps: CreateKeyDeps,
): Promise<KeyView & { key: string }> {
  const request = parseBody(CreateKeySchema, body);
  const rate = request.rate_limit_per_second;
  if (rate !== undefined && rate > deps.defaultRatePerSecond) {
    throw new InvalidRequestError(`rate_limit_per_second must be at most ${deps.defaultRatePerSecond}`);
  }
  if ((await deps.keys.listByAccount(caller.accountId)).length >= MAX_KEYS_PER_ACCOUNT) {
    throw new InvalidRequestError(`an account holds at most ${MAX_KEYS_PER_ACCOUNT} keys: delete or reuse one`);
  }
  const key = generateApiKey();
  const record: ApiKeyRecord = {
    key_hash: hashApiKey(key),
    key_id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    account_id: caller.accountId,
    name: request.name,
    status: 'active',
    spent_units: 0,
    created_at: deps.now().toISOString(),
    ...(rate !== undefined && { rate_per_second: rate }),
  };
  if (request.quota !== undefined && request.quota !== null) {
    record.quota_units = yuanToUnits(request.quota);
    record.quota_remaining_units = record.quota_units;
  }
  await deps.keys.create(record);
  return { ...toKeyView(record), key };
}

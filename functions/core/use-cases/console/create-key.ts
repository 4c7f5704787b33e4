/**
 * POST /api/v1/console/keys. Primary course: check the body (name, optional quota and rate); refuse past
 * MAX_KEYS_PER_ACCOUNT; make a random `bc_` key and store only its hash, with the account checked usable in
 * the same write; answer the key's view with the plaintext, which is never shown again.
 */
import { InvalidRequestError } from '../../api-error.js';
import { generateApiKey, newApiKeyRecord } from '../../api-key.js';
import { CreateKeySchema, MAX_KEYS_PER_ACCOUNT, parseBody, toKeyView } from '../../console-key.js';
import type { KeyView } from '../../console-key.js';
import { yuanToUnits } from '../../money.js';
import type { ConsoleCaller } from './console-caller.js';
import type { KeyDeps } from './key-deps.js';

export type CreateKeyDeps = KeyDeps;

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
  // Deleted keys stay stored (their tasks name them) but hold no place.
  const held = (await deps.keys.listByAccount(caller.accountId)).filter((key) => key.status !== 'deleted');
  if (held.length >= MAX_KEYS_PER_ACCOUNT) {
    throw new InvalidRequestError(`an account holds at most ${MAX_KEYS_PER_ACCOUNT} keys: delete or reuse one`);
  }
  const key = generateApiKey();
  const record = newApiKeyRecord(key, {
    accountId: caller.accountId,
    name: request.name,
    createdAt: deps.now().toISOString(),
    ...(rate !== undefined && { ratePerSecond: rate }),
    ...(request.quota !== undefined && request.quota !== null && { quotaUnits: yuanToUnits(request.quota) }),
  });
  await deps.keys.create(record);
  return { ...toKeyView(record, deps.defaultRatePerSecond), key };
}

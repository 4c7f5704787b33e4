/**
 * The submit's transaction checks the stored key itself (status, quota and quota shape), so a key changed
 * between authentication and the charge can never spend what it no longer may: each refusal names its
 * cause and charges nothing.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DISABLED_API_KEY_MESSAGE, hashApiKey, INVALID_API_KEY_MESSAGE } from '../../functions/core/api-key.js';
import { KeyChangedError } from '../../functions/core/ports/task-repository.js';
import { reauthenticate } from '../../functions/core/use-cases/authenticate.js';
import { submitTask } from '../../functions/core/use-cases/submit-task.js';
import { catalogVideoModel } from '../../functions/providers/registry.js';
import { DynamoDbApiKeyRepository } from '../../functions/adapters/dynamodb/accounts.js';
import { InMemoryCatalog } from '../unit/fakes.js';
import { catalogRecords, PRO } from '../unit/support.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { DynamoDbIdempotencyStore } from '../../functions/adapters/dynamodb/idempotency.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { storedBalance } from '../support/stored-money.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('charge-key');

async function setUp(options: { quotaYuan?: string; balanceYuan?: string } = {}) {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, options.balanceYuan ?? '10');
  const { key } = await admin.createKey({ accountId, ...(options.quotaYuan ? { quotaYuan: options.quotaYuan } : {}) });
  const keyHash = hashApiKey(key);
  const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
  /** Charges 4.2 CNY as a caller authenticated when the key said `keyHasQuota`. */
  const charge = (keyHasQuota: boolean) => {
    const task = taskRecordFor({ accountId, keyHash }, { cost_units: 42_000, key_quota_charged: keyHasQuota });
    return {
      task,
      done: repository.createCharged(task, { accountId, keyHash, keyHasQuota, costUnits: task.cost_units }),
    };
  };
  const nothingCharged = async (taskId: string, balanceUnits: number) => {
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(balanceUnits);
    expect(await read(local.names.tables.tasks, { task_id: taskId })).toBeUndefined();
  };
  return { admin, accountId, key, keyHash, charge, nothingCharged };
}

/** Sets a quota on a key that had none, as an operator editing the table would. */
async function giveQuota(keyHash: string, units: number) {
  await local.db.send(
    new UpdateCommand({
      TableName: local.names.tables.apiKeys,
      Key: { key_hash: keyHash },
      UpdateExpression: 'SET quota_units = :q, quota_remaining_units = :q',
      ExpressionAttributeValues: { ':q': units },
    }),
  );
}

async function read(table: string, key: Record<string, string>) {
  const { Item } = await local.db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  return Item;
}

describe("the submit's transaction and the stored key", () => {
  it('a key disabled since the caller read it: 401 disabled, nothing charged', async () => {
    const { admin, key, charge, nothingCharged } = await setUp();
    await admin.disableKey(key);
    const { task, done } = charge(false);
    await expect(done).rejects.toMatchObject({ code: 401, message: DISABLED_API_KEY_MESSAGE });
    await nothingCharged(task.task_id, 100_000);
  });

  it('a key deleted since: 401 invalid, nothing charged', async () => {
    const { keyHash, charge, nothingCharged } = await setUp();
    await local.db.send(new DeleteCommand({ TableName: local.names.tables.apiKeys, Key: { key_hash: keyHash } }));
    const { task, done } = charge(false);
    await expect(done).rejects.toMatchObject({ code: 401, message: INVALID_API_KEY_MESSAGE });
    await nothingCharged(task.task_id, 100_000);
  });

  it('a key given a quota since: KeyChangedError (re-read and retry), nothing charged', async () => {
    const { keyHash, charge, nothingCharged } = await setUp();
    await giveQuota(keyHash, 1_000_000);
    const { task, done } = charge(false);
    await expect(done).rejects.toBeInstanceOf(KeyChangedError);
    await nothingCharged(task.task_id, 100_000);
  });

  it('a key whose quota was lifted since: KeyChangedError, nothing charged', async () => {
    const { keyHash, charge, nothingCharged } = await setUp({ quotaYuan: '100' });
    await local.db.send(
      new UpdateCommand({
        TableName: local.names.tables.apiKeys,
        Key: { key_hash: keyHash },
        UpdateExpression: 'REMOVE quota_units, quota_remaining_units',
      }),
    );
    const { task, done } = charge(true);
    await expect(done).rejects.toBeInstanceOf(KeyChangedError);
    await nothingCharged(task.task_id, 100_000);
  });

  it('over the quota: 402 naming the quota, even when the balance is short too', async () => {
    const { charge, nothingCharged } = await setUp({ quotaYuan: '4', balanceYuan: '1' });
    const { task, done } = charge(true);
    await expect(done).rejects.toMatchObject({ code: 402, message: expect.stringMatching(/quota/) });
    await nothingCharged(task.task_id, 10_000);
  });

  it('the balance short: 402 insufficient balance', async () => {
    const { charge, nothingCharged } = await setUp({ balanceYuan: '4.1999' });
    const { task, done } = charge(false);
    await expect(done).rejects.toMatchObject({ code: 402, message: expect.stringMatching(/balance/) });
    await nothingCharged(task.task_id, 41_999);
  });

  it('a key given a quota between authentication and the charge is charged against the quota, once', async () => {
    const { keyHash } = await setUp({ balanceYuan: '100' });
    const keys = new DynamoDbApiKeyRepository(local.db, local.names.tables.apiKeys);
    const caller = await reauthenticate({ accountId: '', keyHash, keyHasQuota: false }, keys);
    expect(caller.keyHasQuota).toBe(false);
    await giveQuota(keyHash, 1_000_000);
    const result = await submitTask(
      caller,
      { model: PRO, prompt: 'a fox', duration: 5 },
      {
        keys,
        models: new InMemoryCatalog(catalogRecords().map((record) => catalogVideoModel(record))),
        tasks: new DynamoDbTaskRepository(local.db, local.names.tables),
        urls: { assertPublic: async () => undefined },
        idempotency: new DynamoDbIdempotencyStore(local.db, local.names.tables.idempotency),
        now: () => new Date(),
        newTaskId: randomUUID,
      },
    );
    expect(await read(local.names.tables.tasks, { task_id: result.task_id })).toMatchObject({
      key_quota_charged: true,
    });
    expect(await read(local.names.tables.apiKeys, { key_hash: keyHash })).toMatchObject({
      quota_remaining_units: 1_000_000 - 42_000,
    });
    expect(await storedBalance(local.db, local.names.tables.accounts, caller.accountId)).toBe(1_000_000 - 42_000);
  });

  it('the key as authenticated agrees with the stored key: charged once', async () => {
    const { charge } = await setUp({ quotaYuan: '100' });
    const { task, done } = charge(true);
    await done;
    expect(await read(local.names.tables.tasks, { task_id: task.task_id })).toMatchObject({ key_quota_charged: true });
  });
});

describe('a charge losing to other writers of the account (TransactionConflict, injected)', () => {
  /** The repository on a client whose first `conflicts` transactions lose, and which runs `meanwhile` on each loss. */
  const losing = (conflicts: number, meanwhile: () => Promise<unknown> = async () => undefined) => {
    let left = conflicts;
    let tries = 0;
    const db = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand) tries += 1;
        if (command instanceof TransactWriteCommand && left > 0) {
          left -= 1;
          await meanwhile();
          throw new TransactionCanceledException({
            message: 'Transaction cancelled',
            $metadata: {},
            CancellationReasons: [
              { Code: 'TransactionConflict' },
              { Code: 'None' },
              { Code: 'None' },
              { Code: 'None' },
            ],
          });
        }
        return local.db.send(command as GetCommand);
      },
    } as unknown as DynamoDBDocumentClient;
    return { repository: new DynamoDbTaskRepository(db, local.names.tables), tries: () => tries };
  };

  it('tries again and is charged once when the conflicts pass', async () => {
    const { accountId, keyHash } = await setUp();
    const task = taskRecordFor({ accountId, keyHash }, { cost_units: 42_000 });
    const { repository, tries } = losing(3);
    await repository.createCharged(task, chargeOf(task));
    // Three conflicts, then the try that commits, with one more when its random balance shard was short
    // (a fresh account's money is all on shard 0): the task keeps why it was tried again.
    const stored = await read(local.names.tables.tasks, { task_id: task.task_id });
    expect(stored?.['charge_retries']).toMatchObject({ conflict: 3 });
    expect(tries()).toBe(4 + (stored?.['charge_retries'] as { shard_short: number }).shard_short);
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(58_000);
  });

  it('a balance spent by the winners meanwhile: 402 at the next try, not more tries, nothing charged', async () => {
    const { admin, accountId, keyHash, nothingCharged } = await setUp();
    const task = taskRecordFor({ accountId, keyHash }, { cost_units: 42_000 });
    // Winners take the balance down to 1 CNY (once) while this charge (4.2 CNY) waits for its next try.
    const { repository, tries } = losing(100, () =>
      admin.adjust(accountId, '-9', 'the winners', `winners-${task.task_id}`),
    );
    await expect(repository.createCharged(task, chargeOf(task))).rejects.toMatchObject({ code: 402 });
    expect(tries()).toBe(1);
    await nothingCharged(task.task_id, 10_000);
  });

  it('still losing after the retries: 429 with Retry-After 1, nothing charged', async () => {
    const { accountId, keyHash, nothingCharged } = await setUp();
    const task = taskRecordFor({ accountId, keyHash }, { cost_units: 42_000 });
    const { repository } = losing(Number.POSITIVE_INFINITY);
    await expect(repository.createCharged(task, chargeOf(task))).rejects.toMatchObject({
      code: 429,
      retryAfterSeconds: 1,
      message: 'too many submits at once on this account: nothing was charged; retry after 1 s',
    });
    await nothingCharged(task.task_id, 100_000);
  });
});

function chargeOf(task: ReturnType<typeof taskRecordFor>) {
  return { accountId: task.account_id, keyHash: task.key_hash, keyHasQuota: false, costUnits: task.cost_units };
}

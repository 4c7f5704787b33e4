/**
 * The claim's conditional writes in DynamoDB: one claim at a time, taken over only once expired, and no
 * refund (cancel's or a failure's) while a claim without a job may still make one.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { hashApiKey } from '../../functions/core/api-key.js';
import { newClaim, UPSTREAM_CLAIM_LEASE_MS } from '../../functions/core/use-cases/upstream-claim.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecordFor } from '../support/task-records.js';

const local = useDynamoDbLocal('claim');
const T0 = new Date('2026-11-21T10:00:00.000Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

async function chargedTask() {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, '10');
  const { key } = await admin.createKey({ accountId });
  const repository = new DynamoDbTaskRepository(local.db, local.names.tables);
  const task = taskRecordFor({ accountId, keyHash: hashApiKey(key) }, { status: 'pending', cost_units: 42_000 });
  await repository.createCharged(task, { accountId, keyHash: task.key_hash, keyHasQuota: false, costUnits: 42_000 });
  return { task, repository };
}

describe('the upstream claim in DynamoDB', () => {
  it('one claim at a time; an expired one is taken over only by name', async () => {
    const { task, repository } = await chargedTask();
    const first = newClaim(T0, 'claim-1', 7);
    expect(await repository.claimUpstream(task.task_id, first)).toBe(true);
    expect(await repository.claimUpstream(task.task_id, newClaim(T0, 'claim-2', 8))).toBe(false);
    // Still live: not even by name.
    expect(await repository.claimUpstream(task.task_id, newClaim(later(1000), 'claim-2', 8), 'claim-1')).toBe(false);
    const expired = later(UPSTREAM_CLAIM_LEASE_MS);
    expect(await repository.claimUpstream(task.task_id, newClaim(expired, 'claim-2', 8), 'claim-x')).toBe(false);
    expect(await repository.claimUpstream(task.task_id, newClaim(expired, 'claim-2', 8), 'claim-1')).toBe(true);
    expect(await repository.get(task.task_id)).toMatchObject({ upstream_claim_id: 'claim-2', upstream_seed: 8 });
  });

  it('no refund while a claim has no job; after a job is recorded, or with the expired claim named, once', async () => {
    const { task, repository } = await chargedTask();
    await repository.claimUpstream(task.task_id, newClaim(T0, 'claim-1', 7));
    const at = (date: Date) => date.toISOString();
    expect(await repository.refund(task, 'refunded', 'cancelled', at(T0), { withoutJob: true })).toBe(false);
    expect(await repository.refund(task, 'failed', 'failed', at(T0))).toBe(false);
    // Named but still live: no.
    expect(await repository.refund(task, 'failed', 'failed', at(later(1000)), { expiredClaim: 'claim-1' })).toBe(false);
    const expired = at(later(UPSTREAM_CLAIM_LEASE_MS));
    expect(await repository.refund(task, 'failed', 'failed', expired, { expiredClaim: 'claim-2' })).toBe(false);
    expect(await repository.refund(task, 'failed', 'failed', expired, { expiredClaim: 'claim-1' })).toBe(true);
    expect(await repository.refund(task, 'failed', 'failed', expired, { expiredClaim: 'claim-1' })).toBe(false);
  });

  it('a released claim (its create refused) or a recorded job lets the refund through', async () => {
    const released = await chargedTask();
    await released.repository.claimUpstream(released.task.task_id, newClaim(T0, 'claim-1', 7));
    await released.repository.releaseUpstreamClaim(released.task.task_id, 'claim-1');
    expect(await released.repository.get(released.task.task_id)).not.toHaveProperty('upstream_claim_id');
    expect(await released.repository.refund(released.task, 'refunded', 'cancelled', T0.toISOString())).toBe(true);

    const recorded = await chargedTask();
    await recorded.repository.claimUpstream(recorded.task.task_id, newClaim(T0, 'claim-1', 7));
    await recorded.repository.recordUpstreamJob(recorded.task.task_id, 'cgt-1', T0.toISOString());
    // A recorded job keeps its claim: releasing it then does nothing.
    await recorded.repository.releaseUpstreamClaim(recorded.task.task_id, 'claim-1');
    expect(await recorded.repository.get(recorded.task.task_id)).toMatchObject({ upstream_claim_id: 'claim-1' });
    expect(await recorded.repository.refund(recorded.task, 'failed', 'failed', T0.toISOString())).toBe(true);
  });
});

/** The upgrade's index plan (lib/admin/index-plan.ts): one create or delete per step, each waited for, nothing when it matches. */
import { describe, expect, it } from 'vitest';
import { TABLES } from '../../functions/adapters/resources.js';
import { describeStep, planIndexChanges, wantedIndexes } from '../../lib/admin/index-plan.js';
import type { CurrentIndex, IndexSpec } from '../../lib/admin/index-plan.js';

const active = (index: IndexSpec): CurrentIndex => ({ ...index, status: 'ACTIVE' });
const tasks = wantedIndexes(TABLES.tasks);
const BY_STATUS: CurrentIndex = { name: 'by-status', partitionKey: 'status', sortKey: 'updated_at', status: 'ACTIVE' };

describe('planIndexChanges', () => {
  it('is empty when every wanted index exists, ACTIVE and alike', () => {
    expect(planIndexChanges(tasks.map(active), tasks)).toEqual([]);
  });

  it('deletes the unwanted and creates the missing, one per step, each followed by its wait', () => {
    const steps = planIndexChanges([BY_STATUS], tasks);
    expect(steps).toEqual([
      { kind: 'delete', index: 'by-status' },
      { kind: 'wait', index: 'by-status', until: 'gone' },
      ...tasks.flatMap((index) => [
        { kind: 'create', index },
        { kind: 'wait', index: index.name, until: 'ACTIVE' },
      ]),
    ]);
    expect(steps.filter((step) => step.kind !== 'wait').length).toBe(1 + tasks.length);
  });

  it('replaces an index whose keys or projection differ', () => {
    const [first, ...rest] = tasks;
    for (const changed of [
      { ...first!, sortKey: 'created_at' },
      { ...first!, nonKeyAttributes: undefined },
      { ...first!, nonKeyAttributes: ['status'] },
    ]) {
      expect(planIndexChanges([active(changed), ...rest.map(active)], tasks)).toEqual([
        { kind: 'delete', index: first!.name },
        { kind: 'wait', index: first!.name, until: 'gone' },
        { kind: 'create', index: first },
        { kind: 'wait', index: first!.name, until: 'ACTIVE' },
      ]);
    }
  });

  it('waits out a change in progress before anything else', () => {
    const [first, second, ...rest] = tasks;
    const steps = planIndexChanges(
      [{ ...first!, status: 'CREATING' }, { ...BY_STATUS, status: 'DELETING' }, ...[second!, ...rest].map(active)],
      tasks,
    );
    expect(steps).toEqual([
      { kind: 'wait', index: first!.name, until: 'ACTIVE' },
      { kind: 'wait', index: 'by-status', until: 'gone' },
    ]);
  });

  it('projects ALL for the local stack, and names each step on one line', () => {
    expect(wantedIndexes(TABLES.tasks, true).every((index) => index.nonKeyAttributes === undefined)).toBe(true);
    expect(describeStep('p-tasks', { kind: 'create', index: { name: 'x', partitionKey: 'a', sortKey: 'b' } })).toBe(
      'p-tasks: create index x (a, b; ALL)',
    );
  });
});

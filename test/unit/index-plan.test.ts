/**
 * The upgrade's index plan (lib/ship/admin/index-plan.ts): in AWS, deploys that each change at most one index per
 * table, ending at the release; locally, one create or delete per step, each waited for; nothing when it matches.
 */
import { describe, expect, it } from 'vitest';
import type { TableId } from '../../functions/adapters/runtime/resources.js';
import { describeStep, planIndexChanges, planStages } from '../../lib/ship/admin/index-plan.js';
import type { CurrentIndex } from '../../lib/ship/admin/index-plan.js';
import { allReleaseIndexes, perTable, releaseIndexes, tableIndexesContext } from '../../lib/ship/table-indexes.js';
import { tableIndexesFromContext } from '../../lib/ship/table-indexes.js';
import type { IndexSpec, TableIndexes } from '../../lib/ship/table-indexes.js';

const active = (index: IndexSpec): CurrentIndex => ({ ...index, status: 'ACTIVE' });
const tasks = releaseIndexes('tasks');
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
    expect(releaseIndexes('tasks', true).every((index) => index.nonKeyAttributes === undefined)).toBe(true);
    expect(describeStep('p-tasks', { kind: 'create', index: { name: 'x', partitionKey: 'a', sortKey: 'b' } })).toBe(
      'p-tasks: create index x (a, b; ALL)',
    );
  });
});

const BY_STATUS_SPEC: IndexSpec = { name: 'by-status', partitionKey: 'status', sortKey: 'updated_at' };
/** The tables as the previous schema made them: the tasks table's `by-status`, no other index. */
const previous = perTable<readonly IndexSpec[] | undefined>((id) => (id === 'tasks' ? [BY_STATUS_SPEC] : []));

/** Per table, the index names one state has and the other lacks, or has in another shape. */
function differences(a: TableIndexes, b: TableIndexes): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const id of Object.keys(a) as TableId[]) {
    const names = new Set([...a[id], ...b[id]].map((index) => index.name));
    const changed = [...names].filter((name) => {
      const x = a[id].find((index) => index.name === name);
      const y = b[id].find((index) => index.name === name);
      return JSON.stringify(x) !== JSON.stringify(y);
    });
    if (changed.length > 0) found[id] = changed;
  }
  return found;
}

describe('planStages', () => {
  it('is empty when the tables have the release indexes', () => {
    expect(planStages(allReleaseIndexes(), allReleaseIndexes())).toEqual([]);
  });

  it('changes at most one index per table per stage, creates first, drops last, ends at the release', () => {
    const stages = planStages(previous, allReleaseIndexes());
    // Each new tasks index, then by-status dropped: one deploy each; the ledger and keys tables' one each first.
    expect(stages).toHaveLength(tasks.length + 1);
    expect(stages.at(-1)).toEqual(allReleaseIndexes());
    let before = perTable((id) => previous[id] ?? []);
    for (const stage of stages) {
      for (const names of Object.values(differences(before, stage))) expect(names).toHaveLength(1);
      before = stage;
    }
    expect(stages.map((stage) => stage.tasks.map((index) => index.name))).toEqual([
      ...tasks.map((_, n) => [...tasks.slice(0, n + 1).map((index) => index.name), 'by-status']),
      tasks.map((index) => index.name),
    ]);
    expect(stages[0]!.ledger).toEqual(releaseIndexes('ledger'));
  });

  it('replaces a reshaped index in two stages: delete, then create', () => {
    const [first, ...rest] = tasks;
    const reshaped = { ...first!, sortKey: 'created_at' };
    const stages = planStages({ ...allReleaseIndexes(), tasks: [reshaped, ...rest] }, allReleaseIndexes());
    expect(stages.map((stage) => stage.tasks)).toEqual([rest, tasks]);
  });

  it('creates a table not deployed yet whole, in the first stage', () => {
    const stages = planStages({ ...previous, ledger: undefined }, allReleaseIndexes());
    expect(stages[0]!.ledger).toEqual(releaseIndexes('ledger'));
  });
});

describe('the tableIndexes context', () => {
  it("round-trips each stage: the release's indexes by name, any other spelled out", () => {
    for (const stage of planStages(previous, allReleaseIndexes())) {
      const context = tableIndexesContext(stage);
      expect(tableIndexesFromContext(context)).toEqual(stage);
    }
    const first = JSON.parse(tableIndexesContext(planStages(previous, allReleaseIndexes())[0]!));
    expect(first.tasks).toEqual([tasks[0]!.name, BY_STATUS_SPEC]);
  });

  it('is every release index when absent, and refuses what it cannot read in one line naming the fix', () => {
    expect(tableIndexesFromContext(undefined)).toEqual(allReleaseIndexes());
    expect(tableIndexesContext(allReleaseIndexes())).toBe('{}');
    for (const [raw, message] of [
      ['{', /tableIndexes: is not JSON/],
      ['[]', /must be an object of tables/],
      ['{"task":[]}', /unknown table "task"; tables: /],
      ['{"tasks":["by-time"]}', /tasks has no index "by-time"/],
      ['{"tasks":["in-flight","in-flight"]}', /names an index twice/],
      ['{"tasks":[{"name":"x"}]}', /a release index's name or \{name, partitionKey, sortKey/],
      ['{"tasks":[{"name":"x","partitionKey":"a","sortKey":"b","nonKeyAttributes":"c"}]}', /nonKeyAttributes must be/],
    ] as const) {
      expect(() => tableIndexesFromContext(raw), raw).toThrow(message);
    }
  });
});

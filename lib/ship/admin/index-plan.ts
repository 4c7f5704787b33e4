/**
 * What an upgrade does to the tables' global secondary indexes, as pure data. DynamoDB and CloudFormation take
 * one index create or delete per table update, so: `planStages`, the stateful stack's deploys in AWS, each one
 * change per table; `planIndexChanges`, the local stack's UpdateTable steps, each waited for. An index whose
 * keys or projection differ is deleted, then created again. docs/operations.md, "Upgrades".
 */
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import { perTable, sameShape } from '../table-indexes.js';
import type { CurrentIndex } from '../../../functions/adapters/operator/table-state.js';
import type { IndexSpec, TableIndexes } from '../table-indexes.js';

export type { CurrentIndex } from '../../../functions/adapters/operator/table-state.js';

export type IndexStep =
  | { kind: 'wait'; index: string; until: 'ACTIVE' | 'gone' }
  | { kind: 'create'; index: IndexSpec }
  | { kind: 'delete'; index: string };

/**
 * The ordered steps from `current` to `wanted`: first wait out any change in progress, then delete what is
 * unwanted or misshapen (which frees its name), then create what is missing, one index per step, each followed
 * by a wait. Empty when the table already matches.
 */
export function planIndexChanges(current: readonly CurrentIndex[], wanted: readonly IndexSpec[]): IndexStep[] {
  const steps: IndexStep[] = [];
  const wantedByName = new Map(wanted.map((index) => [index.name, index]));
  for (const index of current) {
    if (index.status === 'DELETING') steps.push({ kind: 'wait', index: index.name, until: 'gone' });
    else if (index.status !== 'ACTIVE') steps.push({ kind: 'wait', index: index.name, until: 'ACTIVE' });
  }
  const live = current.filter((index) => index.status !== 'DELETING');
  const kept = new Set<string>();
  for (const index of live) {
    const want = wantedByName.get(index.name);
    if (want && sameShape(index, want)) kept.add(index.name);
    else steps.push({ kind: 'delete', index: index.name }, { kind: 'wait', index: index.name, until: 'gone' });
  }
  for (const index of wanted.filter((candidate) => !kept.has(candidate.name))) {
    steps.push({ kind: 'create', index }, { kind: 'wait', index: index.name, until: 'ACTIVE' });
  }
  return steps;
}

/** One index change: what a single table update (UpdateTable, or a deploy of the stateful stack) may do. */
type IndexChange = { kind: 'create'; index: IndexSpec } | { kind: 'delete'; index: string };

/**
 * A table's changes from `current` to `wanted` in the order a live service takes them best: new indexes first
 * (the running release does not query them yet), then each reshaped index deleted and created again, then the
 * dropped ones, last, so the running release keeps them as long as possible.
 */
function orderedChanges(current: readonly IndexSpec[], wanted: readonly IndexSpec[]): IndexChange[] {
  const now = new Map(current.map((index) => [index.name, index]));
  const wantedNames = new Set(wanted.map((index) => index.name));
  const reshaped = wanted.filter((index) => now.has(index.name) && !sameShape(now.get(index.name)!, index));
  return [
    ...wanted.filter((index) => !now.has(index.name)).map((index) => ({ kind: 'create' as const, index })),
    ...reshaped.flatMap((index) => [
      { kind: 'delete' as const, index: index.name },
      { kind: 'create' as const, index },
    ]),
    ...current
      .filter((index) => !wantedNames.has(index.name))
      .map((index) => ({ kind: 'delete' as const, index: index.name })),
  ];
}

function applyChange(indexes: readonly IndexSpec[], change: IndexChange): IndexSpec[] {
  return change.kind === 'create' ? [...indexes, change.index] : indexes.filter((index) => index.name !== change.index);
}

/** The release's indexes in its order (the plain template's), then any other as it was. */
function inReleaseOrder(indexes: readonly IndexSpec[], wanted: readonly IndexSpec[]): IndexSpec[] {
  const position = (index: IndexSpec) => {
    const found = wanted.findIndex((candidate) => candidate.name === index.name);
    return found === -1 ? wanted.length : found;
  };
  return [...indexes].sort((a, b) => position(a) - position(b));
}

/**
 * The deploys that take deployed tables (settled: no index CREATING or DELETING; undefined: not created yet)
 * to `wanted`: each stage is every table's indexes after that deploy, and differs from the one before by at
 * most one index per table (DynamoDB's and CloudFormation's limit). The last stage is `wanted`; none when the
 * tables already match it. A table not created yet is created whole, with `wanted`'s indexes, by the first.
 */
export function planStages(
  current: Readonly<Record<TableId, readonly IndexSpec[] | undefined>>,
  wanted: TableIndexes,
): TableIndexes[] {
  const ids = Object.keys(wanted) as TableId[];
  const changes = perTable((id) => (current[id] === undefined ? [] : orderedChanges(current[id], wanted[id])));
  const count = Math.max(0, ...ids.map((id) => changes[id].length));
  const stages: TableIndexes[] = [];
  const state: TableIndexes = perTable((id) => current[id] ?? wanted[id]);
  for (let stage = 0; stage < count; stage += 1) {
    for (const id of ids) {
      const change = changes[id][stage];
      if (change) state[id] = inReleaseOrder(applyChange(state[id], change), wanted[id]);
    }
    stages.push({ ...state });
  }
  return stages;
}

/** One line per step, for the command's output. */
export function describeStep(table: string, step: IndexStep): string {
  switch (step.kind) {
    case 'wait':
      return `${table}: wait until index ${step.index} is ${step.until === 'gone' ? 'deleted' : 'ACTIVE'}`;
    case 'delete':
      return `${table}: delete index ${step.index}`;
    case 'create': {
      const { name, partitionKey, sortKey, nonKeyAttributes } = step.index;
      const projection = nonKeyAttributes ? `INCLUDE ${nonKeyAttributes.join(',')}` : 'ALL';
      return `${table}: create index ${name} (${partitionKey}, ${sortKey}; ${projection})`;
    }
  }
}

/**
 * What an upgrade does to one table's global secondary indexes, as pure data: DynamoDB takes one index
 * create or delete per UpdateTable ("UpdateTable", DynamoDB API reference), so the steps come one at a time,
 * each waited for. An index whose keys or projection differ is deleted, then created again. docs/operations.md, "Upgrades".
 */
import type { TableDefinition } from '../../functions/adapters/resources.js';

export interface IndexSpec {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** Projected non-key attributes (INCLUDE), sorted; undefined: ALL. */
  nonKeyAttributes?: readonly string[];
}

/** An index as DescribeTable reports it. */
export interface CurrentIndex extends IndexSpec {
  status: 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';
}

export type IndexStep =
  | { kind: 'wait'; index: string; until: 'ACTIVE' | 'gone' }
  | { kind: 'create'; index: IndexSpec }
  | { kind: 'delete'; index: string };

/** The indexes a table definition wants; `projectAll` as the local stack makes them (lib/local/emulators.ts). */
export function wantedIndexes(definition: TableDefinition, projectAll = false): IndexSpec[] {
  return (definition.indexes ?? []).map((index) => ({
    name: index.name,
    partitionKey: index.partitionKey,
    sortKey: index.sortKey,
    ...(index.nonKeyAttributes && !projectAll ? { nonKeyAttributes: [...index.nonKeyAttributes].sort() } : {}),
  }));
}

function sameShape(a: IndexSpec, b: IndexSpec): boolean {
  return (
    a.partitionKey === b.partitionKey &&
    a.sortKey === b.sortKey &&
    (a.nonKeyAttributes ?? []).join() === (b.nonKeyAttributes ?? []).join() &&
    (a.nonKeyAttributes === undefined) === (b.nonKeyAttributes === undefined)
  );
}

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

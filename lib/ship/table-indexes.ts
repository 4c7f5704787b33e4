/**
 * The tables' global secondary indexes as data, and the CDK context value `tableIndexes` that restricts the
 * stateful stack to some of them: `admin upgrade` deploys a release's index changes one per table per deploy,
 * each deploy naming the indexes its template keeps (docs/operations.md, "Upgrades"). Absent: every index.
 */
import { TABLES } from '../../functions/adapters/runtime/resources.js';
import type { TableDefinition, TableId } from '../../functions/adapters/runtime/resources.js';
import { SetupError } from './setup-error.js';

export const TABLE_INDEXES_CONTEXT = 'tableIndexes';

export interface IndexSpec {
  name: string;
  partitionKey: string;
  sortKey: string;
  /**
   * Projected non-key attributes (INCLUDE) in the order the template lists them (a new order is a template
   * change; sameShape ignores it); `[]`: KEYS_ONLY; undefined: ALL.
   */
  nonKeyAttributes?: readonly string[];
}

export type TableIndexes = Record<TableId, readonly IndexSpec[]>;

const TABLE_IDS = Object.keys(TABLES) as TableId[];

/** The indexes this release defines for a table; `projectAll` as the local stack makes them. */
export function releaseIndexes(table: TableId, projectAll = false): IndexSpec[] {
  const definition: TableDefinition = TABLES[table];
  return (definition.indexes ?? []).map((index) => ({
    name: index.name,
    partitionKey: index.partitionKey,
    sortKey: index.sortKey,
    ...(index.nonKeyAttributes && !projectAll ? { nonKeyAttributes: [...index.nonKeyAttributes] } : {}),
  }));
}

export function allReleaseIndexes(projectAll = false): TableIndexes {
  return perTable((id) => releaseIndexes(id, projectAll));
}

/** A value for every table. */
export function perTable<T>(value: (id: TableId) => T): Record<TableId, T> {
  const result = {} as Record<TableId, T>;
  for (const id of TABLE_IDS) result[id] = value(id);
  return result;
}

export function sameShape(a: IndexSpec, b: IndexSpec): boolean {
  return (
    a.partitionKey === b.partitionKey &&
    a.sortKey === b.sortKey &&
    (a.nonKeyAttributes === undefined) === (b.nonKeyAttributes === undefined) &&
    [...(a.nonKeyAttributes ?? [])].sort().join() === [...(b.nonKeyAttributes ?? [])].sort().join()
  );
}

/**
 * The context value for `indexes`: per table, a release index by its name, any other (one the release dropped,
 * or an older shape of one it changed) spelled out. Tables that keep every release index are left out.
 */
export function tableIndexesContext(indexes: TableIndexes): string {
  const value: Record<string, (string | IndexSpec)[]> = {};
  for (const id of TABLE_IDS) {
    const release = releaseIndexes(id);
    const wanted = indexes[id];
    const same = wanted.length === release.length && wanted.every((index, n) => index.name === release[n]!.name);
    if (same && wanted.every((index, n) => sameShape(index, release[n]!))) continue;
    value[id] = wanted.map((index) => {
      const defined = release.find((candidate) => candidate.name === index.name);
      return defined && sameShape(defined, index) ? index.name : { ...index };
    });
  }
  return JSON.stringify(value);
}

/** Reads the context value (as `-c` gives it, a JSON string, or an object from cdk.json); absent: every index. */
export function tableIndexesFromContext(raw: unknown): TableIndexes {
  const all = allReleaseIndexes();
  if (raw === undefined || raw === null || raw === '') return all;
  const fail = (why: string): never => {
    throw new SetupError(`context ${TABLE_INDEXES_CONTEXT}: ${why} (docs/operations.md, "Upgrades")`);
  };
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      fail('is not JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('must be an object of tables');
  const chosen = { ...all };
  for (const [table, entries] of Object.entries(value as Record<string, unknown>)) {
    if (!TABLE_IDS.includes(table as TableId)) fail(`unknown table "${table}"; tables: ${TABLE_IDS.join(', ')}`);
    if (!Array.isArray(entries)) fail(`${table} must be a list of indexes`);
    chosen[table as TableId] = (entries as unknown[]).map((entry) => indexEntry(table as TableId, entry, fail));
    const names = chosen[table as TableId].map((index) => index.name);
    if (new Set(names).size !== names.length) fail(`${table} names an index twice`);
  }
  return chosen;
}

function indexEntry(table: TableId, entry: unknown, fail: (why: string) => never): IndexSpec {
  if (typeof entry === 'string') {
    return releaseIndexes(table).find((index) => index.name === entry) ?? fail(`${table} has no index "${entry}"`);
  }
  const spec = entry as Partial<IndexSpec> | null;
  const text = (value: unknown) => typeof value === 'string' && value !== '';
  if (!spec || !text(spec.name) || !text(spec.partitionKey) || !text(spec.sortKey)) {
    fail(`${table}: an index is a release index's name or {name, partitionKey, sortKey, nonKeyAttributes?}`);
  }
  const projected: unknown = spec!.nonKeyAttributes;
  if (projected !== undefined && !(Array.isArray(projected) && projected.every(text))) {
    fail(`${table}: ${spec!.name}'s nonKeyAttributes must be attribute names`);
  }
  return {
    name: spec!.name!,
    partitionKey: spec!.partitionKey!,
    sortKey: spec!.sortKey!,
    ...(spec!.nonKeyAttributes && { nonKeyAttributes: [...spec!.nonKeyAttributes] }),
  };
}

/**
 * `admin upgrade` against the local stack, which has no CloudFormation: brings the tables to this release's
 * indexes (functions/adapters/runtime/resources.ts) with UpdateTable, per table planIndexChanges, each index delete or
 * create alone and waited for. A dry run prints the steps and changes nothing. In AWS: upgrade-deployment.ts. docs/operations.md, "Upgrades".
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLES } from '../../../functions/adapters/runtime/resources.js';
import type { TableDefinition, TableId } from '../../../functions/adapters/runtime/resources.js';
import { releaseIndexes } from '../table-indexes.js';
import { describeStep, planIndexChanges } from './index-plan.js';
import type { IndexStep } from './index-plan.js';
import {
  createIndex,
  currentIndexes,
  deleteIndex,
  describe,
  waitFor,
} from '../../../functions/adapters/operator/table-state.js';
import type { WaitOptions } from '../../../functions/adapters/operator/table-state.js';

export interface UpgradeOptions extends WaitOptions {
  dryRun: boolean;
  log(line: string): void;
  /** Indexes project ALL, as the local stack makes them. */
  projectAll: boolean;
}

/** Returns how many index steps it made, or would make in a dry run. */
export async function upgradeTables(
  client: DynamoDBClient,
  tables: Record<TableId, string>,
  options: UpgradeOptions,
): Promise<number> {
  let changes = 0;
  for (const [id, definition] of Object.entries(TABLES) as [TableId, TableDefinition][]) {
    const table = await describe(client, tables[id]);
    if (!table) {
      options.log(`${tables[id]}: no such table (the stack's first deploy creates it)`);
      continue;
    }
    const steps = planIndexChanges(currentIndexes(table), releaseIndexes(id, options.projectAll));
    // An UpdateTable on a table that is itself UPDATING is refused: wait for it first.
    if (steps.length > 0 && !options.dryRun) await waitFor(client, tables[id], undefined, 'ACTIVE', options);
    for (const step of steps) {
      options.log(`${options.dryRun ? 'would ' : ''}${describeStep(tables[id], step)}`);
      if (step.kind !== 'wait') changes += 1;
      if (!options.dryRun) await apply(client, tables[id], definition, step, options);
    }
  }
  options.log(
    changes === 0 ? 'up to date: nothing to do' : `${options.dryRun ? 'would make' : 'made'} ${changes} changes`,
  );
  return changes;
}

async function apply(
  client: DynamoDBClient,
  table: string,
  definition: TableDefinition,
  step: IndexStep,
  options: WaitOptions,
): Promise<void> {
  switch (step.kind) {
    case 'delete':
      await deleteIndex(client, table, step.index);
      return;
    case 'create':
      await createIndex(client, table, definition, step.index);
      return;
    case 'wait':
      await waitFor(client, table, step.index, step.until, options);
  }
}

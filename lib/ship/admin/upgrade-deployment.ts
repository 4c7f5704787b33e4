/**
 * `admin upgrade` in AWS: deploys this release over the deployed one. DescribeTable each table, planStages,
 * one deploy of the stateful stack per stage but the last (`-c tableIndexes=…`, its indexes), each waited for
 * until every index is ACTIVE; then `cdk deploy --all`. A dry run prints the commands and changes nothing. docs/operations.md, "Upgrades".
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLES } from '../../../functions/adapters/runtime/resources.js';
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import { allReleaseIndexes, perTable, TABLE_INDEXES_CONTEXT, tableIndexesContext } from '../table-indexes.js';
import type { IndexSpec, TableIndexes } from '../table-indexes.js';
import { describeStep, planStages } from './index-plan.js';
import { currentIndexes, describe, waitFor } from '../../../functions/adapters/operator/table-state.js';
import type { WaitOptions } from '../../../functions/adapters/operator/table-state.js';

export interface DeploymentOptions extends WaitOptions {
  dryRun: boolean;
  log(line: string): void;
  /** The deployment's prefix: every command names it (`-c prefix=…`), so CDK deploys the stacks of these tables. */
  prefix: string;
  /**
   * More arguments of every `cdk deploy` (the release's `-c stage=…`, `--require-approval never`: no prompt on a
   * runner without a terminal; lib/ship/release/release.ts).
   */
  cdkArgs?: readonly string[];
  /** Runs one command (`npx cdk deploy …`) in the repository; rejects if it fails. */
  run(command: readonly string[]): Promise<void>;
}

/**
 * Deploys this release over the one in AWS: the stateful stack once per index stage but the last, each with
 * the stage's indexes as context, then `cdk deploy --all`, waiting after each until every index is ACTIVE
 * (CloudFormation may finish before), then the backfills. Returns the deploys and rewrites made (or planned).
 */
export async function upgradeDeployment(
  client: DynamoDBClient,
  tables: Record<TableId, string>,
  options: DeploymentOptions,
): Promise<number> {
  const ids = Object.keys(TABLES) as TableId[];
  const settle = async () => {
    for (const id of ids) if (!options.dryRun) await waitFor(client, tables[id], undefined, 'ACTIVE', options);
  };
  await settle();
  const current = {} as Record<TableId, IndexSpec[] | undefined>;
  for (const id of ids) {
    const table = await describe(client, tables[id]);
    current[id] = table && currentIndexes(table).filter((index) => index.status !== 'DELETING');
  }
  const stages = planStages(current, allReleaseIndexes());
  const verb = options.dryRun ? 'would run' : 'running';
  let before: TableIndexes = perTable((id) => current[id] ?? []);
  for (const [n, stage] of stages.entries()) {
    const last = n === stages.length - 1;
    const command = last
      ? deployAll(options)
      : [
          ...['npx', 'cdk', 'deploy', `${options.prefix}-stateful`, '--exclusively'],
          ...['-c', `prefix=${options.prefix}`, '-c', `${TABLE_INDEXES_CONTEXT}=${tableIndexesContext(stage)}`],
          ...(options.cdkArgs ?? []),
        ];
    options.log(`stage ${n + 1} of ${stages.length}: ${stageChanges(tables, before, stage).join('; ')}`);
    options.log(`${verb}: ${command.map(shellQuote).join(' ')}`);
    if (!options.dryRun) {
      await options.run(command);
      await settle();
    }
    before = stage;
  }
  if (stages.length === 0) {
    const command = deployAll(options);
    options.log(`indexes up to date; ${verb}: ${command.join(' ')}`);
    if (!options.dryRun) await options.run(command);
  }
  return stages.length;
}

/** The release's plain deploy, as docs/operations.md has it, naming the prefix. */
function deployAll(options: DeploymentOptions): string[] {
  return ['npx', 'cdk', 'deploy', '--all', '-c', `prefix=${options.prefix}`, ...(options.cdkArgs ?? [])];
}

/** What one stage does, per table: `vgs-tasks: create index in-flight`. */
function stageChanges(tables: Record<TableId, string>, before: TableIndexes, after: TableIndexes): string[] {
  const lines: string[] = [];
  for (const id of Object.keys(after) as TableId[]) {
    const had = new Map(before[id].map((index) => [index.name, index]));
    const has = new Map(after[id].map((index) => [index.name, index]));
    for (const name of had.keys()) if (!has.has(name)) lines.push(`${tables[id]}: delete index ${name}`);
    for (const [name, index] of has) {
      if (!had.has(name)) lines.push(describeStep(tables[id], { kind: 'create', index }));
    }
  }
  return lines.length > 0 ? lines : ['no index change'];
}

function shellQuote(part: string): string {
  return /^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`;
}

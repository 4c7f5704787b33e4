/**
 * The stateful stack under an upgrade's staged deploys (lib/ship/table-indexes.ts, docs/operations.md "Upgrades"):
 * from the previous schema's template, each stage's template differs from the one before by at most one
 * global secondary index per table, as DynamoDB and CloudFormation require, and the last is the plain one.
 */
import { describe, expect, it } from 'vitest';
import type { TableId } from '../../functions/adapters/runtime/resources.js';
import { physicalNames } from '../../functions/adapters/runtime/resources.js';
import { planStages } from '../../lib/ship/admin/index-plan.js';
import { configFromContext } from '../../lib/ship/cdk/stack-context.js';
import { StatefulStack } from '../../lib/ship/cdk/stateful-stack.js';
import {
  allReleaseIndexes,
  perTable,
  TABLE_INDEXES_CONTEXT,
  tableIndexesContext,
} from '../../lib/ship/table-indexes.js';
import type { IndexSpec, TableIndexes } from '../../lib/ship/table-indexes.js';
import { cdkJson, resourcesOfType, withApp } from './synth.js';
import type { CfnResource } from './synth.js';

type Gsi = { IndexName: string; KeySchema: unknown; Projection: unknown };

/** The stateful stack alone (what a staged deploy deploys), with `-c` context as a string as the CLI gives it. */
function statefulIndexes(context: Record<string, string> = {}): Record<string, Gsi[]> {
  const template = withApp(
    {
      builtinCloudFormationValidation: false,
      context: { ...cdkJson().context, 'aws:cdk:bundling-stacks': [], ...context },
    },
    (app) => {
      const serviceConfig = configFromContext(app);
      const stack = new StatefulStack(app, `${serviceConfig.prefix}-stateful`, { serviceConfig });
      return app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, CfnResource> };
    },
  );
  return Object.fromEntries(
    resourcesOfType(template, 'AWS::DynamoDB::Table').map(([, table]) => [
      table.Properties['TableName'],
      (table.Properties['GlobalSecondaryIndexes'] as Gsi[] | undefined) ?? [],
    ]),
  );
}

/** The names of the indexes two templates' tables differ by (added, removed or reshaped), per table. */
function changedIndexes(before: Record<string, Gsi[]>, after: Record<string, Gsi[]>): Record<string, string[]> {
  const changed: Record<string, string[]> = {};
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const names = new Set([...(before[table] ?? []), ...(after[table] ?? [])].map((index) => index.IndexName));
    const differing = [...names].filter((name) => {
      const find = (indexes: Gsi[] | undefined) => indexes?.find((index) => index.IndexName === name);
      return JSON.stringify(find(before[table])) !== JSON.stringify(find(after[table]));
    });
    if (differing.length > 0) changed[table] = differing;
  }
  return changed;
}

/** The tables' physical names under cdk.json's prefix. */
const TABLE_NAMES = physicalNames(
  withApp({ context: cdkJson().context }, (app) => configFromContext(app)).prefix,
).tables;
const BY_STATUS: IndexSpec = { name: 'by-status', partitionKey: 'status', sortKey: 'updated_at' };

describe('staged index deploys of the stateful stack', () => {
  it('change at most one index per table per deploy, from the previous schema to the release', () => {
    const previous: TableIndexes = perTable((id) => (id === 'tasks' ? [BY_STATUS] : []));
    const stages = planStages(previous, allReleaseIndexes());
    expect(stages.length).toBeGreaterThan(1);
    const context = (stage: typeof previous) => ({ [TABLE_INDEXES_CONTEXT]: tableIndexesContext(stage) });

    // The template CloudFormation holds for the deployed tables, and the stage deploys' templates in order.
    let before = statefulIndexes(context(previous));
    expect(before[TABLE_NAMES.tasks]?.map((index) => index.IndexName)).toEqual(['by-status']);
    for (const stage of stages.slice(0, -1)) {
      const after = statefulIndexes(context(stage));
      const changed = changedIndexes(before, after);
      expect(Object.keys(changed).length).toBeGreaterThan(0);
      for (const [table, names] of Object.entries(changed)) expect(names, table).toHaveLength(1);
      before = after;
    }
    // The last stage is the plain deploy (`cdk deploy --all`, no context): one change from the one before.
    const plain = statefulIndexes();
    for (const [table, names] of Object.entries(changedIndexes(before, plain))) expect(names, table).toHaveLength(1);
    expect(statefulIndexes(context(stages.at(-1)!))).toEqual(plain);
  });

  it('without the context gives every index the release defines', () => {
    const plain = statefulIndexes();
    for (const [id, indexes] of Object.entries(allReleaseIndexes()) as [TableId, IndexSpec[]][]) {
      expect(plain[TABLE_NAMES[id]]?.map((index) => index.IndexName) ?? [], id).toEqual(
        indexes.map((index) => index.name),
      );
    }
  });
});

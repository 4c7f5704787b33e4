/**
 * The release command (lib/ship/release/release.ts; docs/operations.md, "Releases"): arguments checked first, a
 * security gate that stops a widening unless `--approve-iam`, and `admin upgrade`'s deploys with no prompt. The
 * commands are recorded, never run; DescribeTable answers with the release's own indexes.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { physicalNames, TABLES } from '../../functions/adapters/runtime/resources.js';
import type { TableId } from '../../functions/adapters/runtime/resources.js';
import { release, ReleaseRefused } from '../../lib/ship/release/release.js';
import { releaseOptions, ReleaseUsageError } from '../../lib/ship/release/release-options.js';
import { allReleaseIndexes } from '../../lib/ship/table-indexes.js';

/** A DynamoDB client whose tables already have this release's indexes, all ACTIVE. */
function upToDateTables(prefix: string): DynamoDBClient {
  const indexes = allReleaseIndexes();
  const byName = Object.fromEntries(
    (Object.keys(TABLES) as TableId[]).map((id) => [physicalNames(prefix).tables[id], indexes[id]]),
  );
  return {
    send: async (command: { input: { TableName: string } }) => ({
      Table: {
        TableName: command.input.TableName,
        TableStatus: 'ACTIVE',
        GlobalSecondaryIndexes: (byName[command.input.TableName] ?? []).map((index) => ({
          IndexName: index.name,
          IndexStatus: 'ACTIVE',
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection:
            index.nonKeyAttributes === undefined
              ? { ProjectionType: 'ALL' }
              : index.nonKeyAttributes.length === 0
                ? { ProjectionType: 'KEYS_ONLY' }
                : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.nonKeyAttributes] },
        })),
      },
    }),
  } as unknown as DynamoDBClient;
}

async function releaseWith(argv: string[], exitCodes: (command: readonly string[]) => number = () => 0) {
  const commands: string[] = [];
  const lines: string[] = [];
  const outcome = release(releaseOptions(argv), {
    client: upToDateTables('vgs'),
    prefix: 'vgs',
    pollMs: 1,
    log: (line) => lines.push(line),
    run: async (command) => {
      commands.push(command.join(' '));
      return exitCodes(command);
    },
  });
  return { outcome, commands, lines };
}

describe('arguments', () => {
  it('needs a known stage, and nothing else than the documented flags', () => {
    expect(() => releaseOptions([])).toThrow(ReleaseUsageError);
    expect(() => releaseOptions(['--stage', 'qa'])).toThrow(/dev, staging, prod/);
    expect(() => releaseOptions(['--stage', 'prod', '--yes'])).toThrow(/unknown argument/);
    expect(releaseOptions(['--stage=prod', '--dry-run'])).toEqual({ stage: 'prod', approveIam: false, dryRun: true });
  });
});

describe('a release', () => {
  it('passes the security gate, then deploys every stack with no prompt, for the stage', async () => {
    const { outcome, commands } = await releaseWith(['--stage', 'prod']);
    await outcome;
    expect(commands).toEqual([
      'npx cdk diff --all --security-only --fail -c stage=prod',
      'npx cdk deploy --all -c prefix=vgs -c stage=prod --require-approval never --ci',
    ]);
  });

  it('that widens IAM stops before any deploy without --approve-iam', async () => {
    const widening = (command: readonly string[]) => (command.includes('diff') ? 1 : 0);
    const refused = await releaseWith(['--stage', 'prod'], widening);
    await expect(refused.outcome).rejects.toThrow(ReleaseRefused);
    expect(refused.commands.filter((command) => command.includes('deploy'))).toEqual([]);

    const approved = await releaseWith(['--stage', 'prod', '--approve-iam'], widening);
    await approved.outcome;
    expect(approved.commands.at(-1)).toContain('cdk deploy --all');
    expect(approved.commands.at(-1)).toContain('--require-approval never');
  });

  it('in a dry run synthesizes the stage and reads its tables, then only prints the gate and the deploys', async () => {
    const { outcome, commands, lines } = await releaseWith(['--stage', 'staging', '--dry-run']);
    await outcome;
    expect(commands).toEqual(['npx cdk synth --all --quiet -c stage=staging']);
    expect(lines.join('\n')).toContain('would run the security gate: npx cdk diff --all --security-only --fail');
    expect(lines.join('\n')).toMatch(/would run: npx cdk deploy --all .*--require-approval never/);
  });
});

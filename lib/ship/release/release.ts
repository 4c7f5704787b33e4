/**
 * The release, as CI runs it (docs/operations.md, "Releases"): no prompt anywhere. (1) The security gate: `cdk diff
 * --security-only --fail` exits non-zero when the release widens IAM or security groups (as CDK Pipelines'
 * permissions-broadening check runs it); without `--approve-iam` the release stops there. (2) `admin upgrade`'s
 * deploys (upgrade-deployment.ts), each `--require-approval never`: the gate decided. A dry run synthesizes the
 * stage, reads its tables' indexes and prints the rest: it stops where CloudFormation would be called.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import { upgradeDeployment } from '../admin/upgrade-deployment.js';
import type { ReleaseOptions } from './release-options.js';

export interface ReleaseDependencies {
  /** DescribeTable of the stage's tables (the index plan). */
  readonly client: DynamoDBClient;
  /** The stage's prefix (cdk.json `stages.<stage>.prefix`). */
  readonly prefix: string;
  /** Runs one command in the repository; resolves with its exit code. */
  run(command: readonly string[]): Promise<number>;
  log(line: string): void;
  readonly pollMs?: number;
}

export class ReleaseRefused extends Error {}

/** Runs the release; resolves once deployed (or, in a dry run, once every command is printed). */
export async function release(options: ReleaseOptions, deps: ReleaseDependencies): Promise<void> {
  const context = ['-c', `stage=${options.stage}`];
  const gate = ['npx', 'cdk', 'diff', '--all', '--security-only', '--fail', ...context];
  deps.log(`release of stage ${options.stage} (prefix ${deps.prefix})${options.dryRun ? ', dry run' : ''}`);
  if (options.dryRun) {
    const synth = ['npx', 'cdk', 'synth', '--all', '--quiet', ...context];
    deps.log(`running: ${synth.join(' ')}`);
    if ((await deps.run(synth)) !== 0) throw new ReleaseRefused(`stage ${options.stage} does not synthesize`);
    deps.log(`would run the security gate: ${gate.join(' ')}`);
    deps.log(options.approveIam ? 'a widening would be approved (--approve-iam)' : 'a widening would stop the release');
  }
  const widened = !options.dryRun && (await runGate(gate, deps));
  if (widened && !options.approveIam) {
    throw new ReleaseRefused(
      'this release widens IAM or security groups (the diff above); review it, then run again with --approve-iam',
    );
  }
  if (!options.dryRun) deps.log(widened ? 'widening approved (--approve-iam)' : 'no widening: nothing to approve');
  await upgradeDeployment(deps.client, physicalNames(deps.prefix).tables, {
    dryRun: options.dryRun,
    pollMs: deps.pollMs ?? 10_000,
    log: deps.log,
    prefix: deps.prefix,
    cdkArgs: [...context, '--require-approval', 'never', '--ci'],
    run: async (command) => {
      const code = await deps.run(command);
      if (code !== 0) throw new Error(`${command.slice(0, 4).join(' ')} … failed (exit ${code})`);
    },
  });
}

async function runGate(gate: readonly string[], deps: ReleaseDependencies): Promise<boolean> {
  deps.log(`security gate: ${gate.join(' ')}`);
  return (await deps.run(gate)) !== 0;
}

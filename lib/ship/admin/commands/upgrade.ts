/** upgrade: deploy this release with its index changes staged (docs/operations.md, "Upgrades"). */
import { spawn } from 'node:child_process';
import { REPOSITORY_ROOT } from '../../repository-root.js';
import type { Command } from '../cli/command.js';
import { UsageError } from '../errors.js';

export const UPGRADE_COMMANDS: Record<string, Command> = {
  upgrade: {
    args: '[--dry-run]',
    summary: 'deploy this release (cdk deploy) with its index changes staged',
    details: [
      'AWS (TABLE_PREFIX set): one deploy of <prefix>-stateful per index change per table, each waited for',
      'until ACTIVE (an index on a large table builds for a while), then `npx cdk deploy --all`. The local',
      'stack: UpdateTable one index at a time. Safe to run again. --dry-run prints the deploys and changes',
      'nothing. STAGE names the stage of cdk.json to deploy (its default otherwise). docs/operations.md, "Upgrades".',
    ].join('\n'),
    flags: ['dry-run'],
    async run(args, open, output) {
      const dryRun = args.flag('dry-run');
      const { client, tables, where } = await open();
      const [{ upgradeTables }, { upgradeDeployment }] = await Promise.all([
        import('../upgrade.js'),
        import('../upgrade-deployment.js'),
      ]);
      output.err(`upgrading (${where})${dryRun ? ', dry run: nothing is changed' : ''}`);
      const log = (line: string) => output.out(line);
      if (where === 'local') {
        // The local stack makes an index at once, as it makes its tables (no CloudFormation).
        await upgradeTables(client, tables, { dryRun, projectAll: true, pollMs: 100, log });
        return;
      }
      const prefix = process.env['TABLE_PREFIX'];
      if (!prefix) throw new UsageError("upgrade in AWS needs TABLE_PREFIX, the deployment's prefix");
      // AWS builds an index for minutes, hours on a large table.
      await upgradeDeployment(client, tables, {
        dryRun,
        pollMs: 10_000,
        log,
        prefix,
        // The stage whose account and settings the deploys use (cdk.json `stages`; its default otherwise).
        ...(process.env['STAGE'] && { cdkArgs: ['-c', `stage=${process.env['STAGE']}`] }),
        run: runInRepository,
      });
    },
  },
};

/** Runs a command in the repository, its output the terminal's; rejects when it fails. */
function runInRepository(command: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `${command.slice(0, 3).join(' ')} … failed (${signal ?? `exit ${code}`}): run upgrade again once fixed`,
            ),
          ),
    );
  });
}

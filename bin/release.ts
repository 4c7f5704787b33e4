/**
 * `npm run release -- --stage <stage> [--approve-iam] [--dry-run]`: the non-interactive release CI runs
 * (lib/ship/release/release.ts; docs/operations.md, "Releases"). Exit 2 on a bad argument or a refused release.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { ownDocumentClient } from '../functions/adapters/dynamodb/client.js';
import { stageFromContext } from '../lib/ship/cdk/stages.js';
import { release, ReleaseRefused } from '../lib/ship/release/release.js';
import { releaseOptions, ReleaseUsageError } from '../lib/ship/release/release-options.js';
import { REPOSITORY_ROOT } from '../lib/ship/repository-root.js';
import { SetupError } from '../lib/ship/setup-error.js';

try {
  const options = releaseOptions(process.argv.slice(2));
  const context = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'cdk.json'), 'utf8')).context;
  const stage = stageFromContext(new App({ context: { ...context, stage: options.stage } }));
  if (!stage) throw new SetupError(`no stage ${options.stage} in cdk.json`);
  const own = ownDocumentClient({ region: stage.env.region });
  await release(options, {
    client: own.client,
    prefix: String(stage.settings['prefix']),
    log: (line) => console.log(line),
    run: (command) =>
      new Promise((resolve, reject) => {
        const child = spawn(command[0] as string, command.slice(1), { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
        child.on('error', reject);
        child.on('exit', (code) => resolve(code ?? 1));
      }),
  }).finally(own.destroy);
} catch (error) {
  if (!(error instanceof ReleaseUsageError || error instanceof ReleaseRefused || error instanceof SetupError))
    throw error;
  console.error(`error: ${error.message}`);
  process.exit(2);
}

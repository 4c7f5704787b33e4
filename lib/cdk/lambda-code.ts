/**
 * A function's code: its bundle from lib/local/lambda-bundles.ts, the very build the local stack runs (one
 * esbuild pass for every function, cached by content), copied in by CDK's local asset bundling. Synthesis is
 * synchronous and the build is not, so it runs once per synthesis in a child Node with tsx; a stack excluded
 * from bundling (`cdk deploy <other stack>`, the tests' `aws:cdk:bundling-stacks: []`) never asks for it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { REPOSITORY_ROOT } from '../repository-root.js';

const BUNDLES_MODULE = join(REPOSITORY_ROOT, 'lib', 'local', 'lambda-bundles.ts');
let built: Record<string, string> | undefined;

/** The code of the function whose handler module is `entry` (lib/routes.ts): `index.mjs` and its map. */
export function bundledCode(entry: string): Code {
  return Code.fromAsset(join(REPOSITORY_ROOT, 'functions'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local build either succeeds or throws (no Docker fallback).
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-alpine'),
      // CDK keys its bundling cache by the source and these options (not by `local`): one key per function.
      environment: { LAMBDA_ENTRY: entry },
      local: {
        tryBundle(outputDir: string): boolean {
          built ??= buildBundlesSync();
          const file = built[entry];
          if (!file) throw new Error(`no bundle for ${entry}: is it in lib/routes.ts?`);
          cpSync(dirname(file), outputDir, { recursive: true });
          return true;
        },
      },
    },
  });
}

/** `await lambdaBundles()` in a child process: each function's bundle file by its entry. */
function buildBundlesSync(): Record<string, string> {
  const work = mkdtempSync(join(tmpdir(), 'vgs-lambda-bundles-'));
  const result = join(work, 'files.json');
  try {
    const script = [
      "import { writeFileSync } from 'node:fs';",
      `import { lambdaBundles } from ${JSON.stringify(pathToFileURL(BUNDLES_MODULE).href)};`,
      'writeFileSync(process.env.LAMBDA_BUNDLES_RESULT, JSON.stringify((await lambdaBundles()).files));',
    ].join('\n');
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, LAMBDA_BUNDLES_RESULT: result },
      // A CDK app's stdout is the CLI's.
      stdio: ['ignore', 2, 2],
    });
    return JSON.parse(readFileSync(result, 'utf8')) as Record<string, string>;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

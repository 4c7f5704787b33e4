/**
 * A function's code: its bundle from lib/ship/build/lambda-bundles.ts, the very build the local stack runs (one
 * esbuild pass for every function, cached by content), copied in by CDK's local asset bundling. The build
 * runs once per synthesis (await-in-child.ts); a stack excluded from bundling (`cdk deploy <other stack>`, the
 * tests' `aws:cdk:bundling-stacks: []`) never asks for it.
 */
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { REPOSITORY_ROOT } from '../repository-root.js';
import type { LambdaBundles } from '../build/lambda-bundles.js';
import { awaitInChild } from './await-in-child.js';

const BUNDLES_MODULE = join(REPOSITORY_ROOT, 'lib', 'ship', 'build', 'lambda-bundles.ts');
let built: Record<string, string> | undefined;

/** The code of the function whose handler module is `entry` (lib/ship/routes.ts): `index.mjs` and its map. */
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
          built ??= awaitInChild<LambdaBundles>(BUNDLES_MODULE, 'lambdaBundles').files;
          const file = built[entry];
          if (!file) throw new Error(`no bundle for ${entry}: is it in lib/ship/routes.ts?`);
          cpSync(dirname(file), outputDir, { recursive: true });
          return true;
        },
      },
    },
  });
}

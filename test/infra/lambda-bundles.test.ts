/**
 * The app synthesizes offline as `cdk synth` runs it (cdk.json's app command, no credentials, no Docker),
 * and each Lambda asset is a real bundle: it loads under Node 22 outside the repository with only its
 * function's environment, exports `handler`, stays within 550 KiB, and equals the local stack's build.
 */
import { CATALOG } from '../../functions/catalog.js';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lambdaBundles } from '../../lib/ship/build/lambda-bundles.js';
import { importEachInNode22 } from '../support/bundle-imports.js';
import { ALL_FUNCTIONS } from '../../lib/ship/routes.js';
import type { CfnResource } from './synth.js';
import { cdkJson, REPOSITORY_ROOT } from './synth.js';

const run = promisify(execFile);
const NODE_22 = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'node');

interface Bundle {
  functionName: string;
  dir: string;
  file: string;
  environment: Record<string, string>;
}

let outdir: string;
let loadRoot: string;
let synthSeconds: number;
let bundles: Bundle[];

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'vgs-cdk-out-'));
  loadRoot = mkdtempSync(join(tmpdir(), 'vgs-bundle-load-'));
  const started = Date.now();
  // What the CLI does for `cdk synth`: run cdk.json's `app` with the context and output directory in the env.
  execFileSync('sh', ['-c', cdkJson().app], {
    cwd: REPOSITORY_ROOT,
    env: {
      ...withoutAwsCredentials(process.env),
      PATH: `${join(REPOSITORY_ROOT, 'node_modules', '.bin')}${delimiter}${process.env['PATH'] ?? ''}`,
      CDK_OUTDIR: outdir,
      // The CLI adds the asset metadata flag by default (`--asset-metadata`): it names each asset's directory.
      CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJson().context, 'aws:cdk:enable-asset-metadata': true }),
      // `--no-validation`: the built-in CloudFormation validation is most of a synth's CPU, and
      // video-service-stack.test.ts runs it.
      CDK_VALIDATION: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 540_000,
  });
  synthSeconds = (Date.now() - started) / 1000;
  console.log(`synth with bundling of every function: ${synthSeconds.toFixed(1)} s`);

  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  bundles = Object.values(manifest.artifacts)
    .filter((artifact) => artifact.type === 'aws:cloudformation:stack')
    .flatMap((artifact) => {
      const template = JSON.parse(readFileSync(join(outdir, artifact.properties?.templateFile as string), 'utf8'));
      return (
        Object.values(template.Resources as Record<string, CfnResource>)
          // The service names each of its functions; CDK's own (the console deployment's handler) have no name.
          .filter((resource) => resource.Type === 'AWS::Lambda::Function' && 'FunctionName' in resource.Properties)
          .map((resource) => {
            const metadata = resource['Metadata'] as Record<string, string>;
            const dir = join(outdir, metadata['aws:asset:path'] as string);
            const variables = (resource.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
            return {
              functionName: resource.Properties['FunctionName'] as string,
              dir,
              file: join(dir, 'index.mjs'),
              environment: Object.fromEntries(
                Object.entries(variables).map(([name, value]) => [
                  name,
                  typeof value === 'string' ? value : `dummy-${name}`,
                ]),
              ),
            };
          })
      );
    });
}, 600_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
  if (loadRoot) rmSync(loadRoot, { recursive: true, force: true });
});

function withoutAwsCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^AWS_|^CDK_DEFAULT_/.test(name)));
}

it('runs the Node 22 of the devDependencies', () => {
  expect(execFileSync(NODE_22, ['--version'], { encoding: 'utf8' })).toMatch(/^v22\./);
});

it('synthesizes the stacks, bundling every function with the local esbuild (never Docker)', () => {
  expect(bundles.map((b) => b.functionName).sort()).toEqual(ALL_FUNCTIONS.map(({ id }) => `vgs-${id}`).sort());
  for (const bundle of bundles) {
    expect(existsSync(bundle.file), bundle.functionName).toBe(true);
    expect(existsSync(`${bundle.file}.map`), bundle.functionName).toBe(true);
  }
});

it('bundles are ESM with the AWS SDK inside and a require shim', () => {
  for (const bundle of bundles) {
    const code = readFileSync(bundle.file, 'utf8');
    expect(code.startsWith("import { createRequire } from 'module';"), bundle.functionName).toBe(true);
    // Bundled, not imported from the runtime's copy.
    expect(code, bundle.functionName).not.toMatch(/from\s*["']@aws-sdk\//);
  }
});

it('the local stack runs these very bundles: its build (lib/ship/build/lambda-bundles.ts) is the same, byte for byte', async () => {
  const local = await lambdaBundles();
  const differing = bundles.filter((bundle) => {
    const { entry } = ALL_FUNCTIONS.find(({ id }) => bundle.functionName === `vgs-${id}`)!;
    return !readFileSync(local.files[entry]!).equals(readFileSync(bundle.file));
  });
  expect(differing.map((bundle) => bundle.functionName)).toEqual([]);
}, 600_000);

// Every bundle carries each provider's contract (the registry, through the settings); two providers made
// the largest about 512 KB. A function may state a budget of its own, with why (functions/catalog.ts).
it('every bundle stays within its budget: 550 KiB unless its catalog entry says otherwise', () => {
  const budgetOf = (functionName: string) =>
    CATALOG.find(({ id }) => functionName === `vgs-${id}`)?.bundleBudgetKiB ?? 550;
  const over = bundles.filter((bundle) => statSync(bundle.file).size > budgetOf(bundle.functionName) * 1024);
  expect(over.map((bundle) => `${bundle.functionName}: ${statSync(bundle.file).size} bytes`)).toEqual([]);
});

it('every bundle loads under Node 22 with its function environment, and exports handler', async () => {
  const jobs = bundles.map((bundle) => {
    // Outside the repository: nothing can be found in its node_modules.
    const copy = join(loadRoot, bundle.functionName);
    cpSync(bundle.dir, copy, { recursive: true });
    const environment = { AWS_REGION: 'us-east-1', AWS_DEFAULT_REGION: 'us-east-1', ...bundle.environment };
    return { name: bundle.functionName, file: join(copy, 'index.mjs'), environment, cwd: copy };
  });
  expect(await importEachInNode22(jobs)).toEqual({});
  const rows = bundles
    .map((b) => ({
      name: b.functionName,
      kib: statSync(b.file).size / 1024,
      mapKib: statSync(`${b.file}.map`).size / 1024,
    }))
    .sort((a, b) => b.kib - a.kib);
  console.log(
    ['function                bundle (KiB)  source map (KiB)']
      .concat(
        rows.map((r) => `${r.name.padEnd(24)}${r.kib.toFixed(0).padStart(12)}${r.mapKib.toFixed(0).padStart(18)}`),
      )
      .join('\n'),
  );
}, 300_000);

it('the aws-cdk CLI of the devDependencies can read the cloud assembly', async () => {
  const cli = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'cdk');
  const result = await run(cli, ['ls', '--app', outdir, '--no-notices'], {
    cwd: REPOSITORY_ROOT,
    env: { ...withoutAwsCredentials(process.env), CI: 'true' },
    timeout: 170_000,
  }).then(
    ({ stdout }) => ({ ok: true, output: stdout }),
    (error: { stderr?: string; stdout?: string }) => ({
      ok: false,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
  expect(result.ok, result.output).toBe(true);
  expect(result.output).toContain('vgs-stateful');
  expect(result.output).toContain('vgs-stateless');
}, 300_000);

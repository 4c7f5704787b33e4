/**
 * `npm run --silent sam:env`: writes env.json for `sam local start-api` from the `-c samLocal=true` template
 * and the running `npm start` stack (.data/local-stack.json). See docs/local-stack.md, "`sam local`". A stack on a real
 * upstream does not record its key: this reads it (`ARK_API_KEY`) from its own environment.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_PREFIX } from '../functions/adapters/runtime/resources.js';
import type { CfnTemplate, LocalStackRuntime } from '../lib/dev/local/sam-env.js';
import { REPOSITORY_ROOT } from '../lib/ship/repository-root.js';
import { commandOptions } from '../lib/ship/command-line.js';

const USAGE = `usage: npm run --silent sam:env -- [--template FILE] [--host NAME] [--out FILE]
  --template  the stateless template of \`npx cdk synth -c samLocal=true\` (default cdk.out/${DEFAULT_PREFIX}-stateless.template.json)
  --host      how SAM's containers reach this machine (default host.docker.internal)
  --out       where to write (default env.json)`;

const values = commandOptions(USAGE, {
  template: { type: 'string', default: `cdk.out/${DEFAULT_PREFIX}-stateless.template.json` },
  host: { type: 'string', default: 'host.docker.internal' },
  out: { type: 'string', default: 'env.json' },
  help: { type: 'boolean', short: 'h' },
});
// Loaded once the options are known, so that `--help` and a bad option answer at once.
const [
  { providerEnv },
  { runtimeFile },
  { functionsMissingSamVariables, realUpstreams, samEnvVars },
  { LOCAL_REGION },
] = await Promise.all([
  import('../functions/adapters/runtime/config.js'),
  import('../lib/ship/admin/target.js'),
  import('../lib/dev/local/sam-env.js'),
  import('../lib/ship/sam-local/local-aws.js'),
]);

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const templatePath = resolve(REPOSITORY_ROOT, values.template);
if (!existsSync(templatePath)) fail(`no ${values.template}: run \`npx cdk synth -c samLocal=true\` first\n${USAGE}`);
const template = JSON.parse(readFileSync(templatePath, 'utf8')) as CfnTemplate;
const missing = functionsMissingSamVariables(template);
if (missing.length > 0) {
  fail(
    `${values.template} was not synthesized with -c samLocal=true (${missing.length} functions lack the variables ` +
      'env.json sets, and SAM ignores undeclared ones): run `npx cdk synth -c samLocal=true`',
  );
}
const runtimePath = runtimeFile(resolve(REPOSITORY_ROOT, process.env['DATA_DIR'] ?? '.data'));
if (!existsSync(runtimePath)) fail('no running local stack found: start it with `npm start` (in another terminal)');
const runtime = JSON.parse(readFileSync(runtimePath, 'utf8')) as LocalStackRuntime;

if (!runtime.endpoints.upstreams) fail('the running local stack is older than this checkout: restart `npm start`');
const keyVariables = realUpstreams(runtime).map((provider) => [provider, providerEnv(provider).apiKey.name] as const);
const unset = keyVariables.filter(([, name]) => !process.env[name]?.trim()).map(([, name]) => name);
if (unset.length > 0) fail(`the running stack uses a real upstream: set ${unset.join(', ')} as for npm start`);
const apiKeys = Object.fromEntries(keyVariables.map(([provider, name]) => [provider, process.env[name]!.trim()]));

const env = samEnvVars(template, runtime, values.host, apiKeys);
writeFileSync(resolve(REPOSITORY_ROOT, values.out), `${JSON.stringify(env, null, 2)}\n`);
console.log(`Wrote ${values.out} for ${Object.keys(env).length} functions (endpoints via ${values.host}). Then:
  sam local start-api -t ${values.template} --env-vars ${values.out} --region ${LOCAL_REGION} --port 3001`);

/**
 * `npm start`: runs the whole service on this machine. Flags: --memory (nothing persists).
 * Env: PORT (default 3000), DEMO_API_KEY (fixes the demo key), DEMO_CONSOLE_PASSWORD (fixes the demo console
 * login's password), DATA_DIR (default .data); ARK_API_KEY (then the
 * real Ark instead of its simulator), ARK_BASE_URL, ARK_PLATFORM. Only here is the upstream read from the
 * environment: tests and the bench start the stack with explicit choices (lib/dev/local/upstream-environment.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPOSITORY_ROOT } from '../lib/ship/repository-root.js';
import { commandOptions } from '../lib/ship/command-line.js';

const USAGE = `usage: npm start [-- --memory]
  --memory   keep everything in memory (nothing persists)
environment: PORT (default 3000), DEMO_API_KEY (fixes the demo key), DATA_DIR (default .data),
  DEMO_CONSOLE_PASSWORD (fixes the password of the console's demo login, demo@example.com),
  ARK_API_KEY (use the real Ark, not the simulator), ARK_BASE_URL (default: the platform's),
  ARK_PLATFORM (byteplus or volcengine; default byteplus)`;

const values = commandOptions(USAGE, {
  memory: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
});
const dataDir = resolve(REPOSITORY_ROOT, process.env['DATA_DIR'] ?? '.data');
const persistent = !values.memory;
const port = Number(process.env['PORT'] ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number (0 to 65535; 0 picks a free one), not "${process.env['PORT']}"\n${USAGE}`);
  process.exit(2);
}
// Loaded once the options are known, so that `--help` and a bad option answer at once.
const { ENV, MissingConfigError } = await import('../functions/adapters/runtime/config.js');
const { upstreamChoicesFromEnvironment } = await import('../lib/dev/local/upstream-environment.js');
// Each provider's real upstream when its key is set, else its simulator; a bad value stops here, named.
const upstreams = (() => {
  try {
    return upstreamChoicesFromEnvironment();
  } catch (error) {
    if (!(error instanceof MissingConfigError)) throw error;
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
})();
for (const warning of upstreams.warnings) console.warn(warning);
const { paymentChoiceFromEnvironment } = await import('../lib/dev/local/payment-environment.js');
// Alipay itself when the app id and both keys are set, else the project's simulator.
const payments = (() => {
  try {
    return paymentChoiceFromEnvironment();
  } catch (error) {
    if (!(error instanceof MissingConfigError)) throw error;
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
})();
const [{ generateApiKey }, { startLocalStack }, { describeUpstream }, { runtimeFile }] = await Promise.all([
  import('../functions/core/api-key.js'),
  import('../lib/dev/local/local-stack.js'),
  import('../lib/dev/local/upstreams.js'),
  import('../lib/ship/admin/target.js'),
]);

mkdirSync(dataDir, { recursive: true });
const started = Date.now();
console.log(`Starting the video generation service (${persistent ? `data in ${dataDir}` : 'in memory'})…`);
// The console's SPA, built (or found in the cache) while the stack starts: the gateway serves the same directory.
const consoleBuild = buildConsole().then(
  (directory) => ({ directory, error: undefined }),
  (error: Error) => ({ directory: undefined, error }),
);
const stack = await startLocalStack({
  port,
  dataDir: persistent ? dataDir : undefined,
  demoApiKey: process.env['DEMO_API_KEY'] ?? demoKey(),
  demoConsolePassword: process.env['DEMO_CONSOLE_PASSWORD'] ?? demoConsolePassword(),
  upstreams: upstreams.choices,
  payments,
  accessLog: (line) => console.log(line),
  progress: (line) => console.log(line),
  environment: {
    POWERTOOLS_LOG_LEVEL: process.env['POWERTOOLS_LOG_LEVEL'] ?? 'INFO',
    // Generous on one's own machine (scripts and test clients poll hard); AWS deploys default to 10/s.
    [ENV.defaultRateLimitPerSecond.name]: process.env[ENV.defaultRateLimitPerSecond.name] ?? '100',
  },
}).catch((error: Error) => {
  // The usual reason, said plainly (the emulators it started are stopped again by now).
  const inUse = /EADDRINUSE/.test(error.message);
  console.error(
    inUse ? `Port ${port} is in use: stop what holds it, or set PORT (e.g. PORT=3001 npm start).` : error.message,
  );
  process.exit(1);
});
writeFileSync(
  runtimeFile(dataDir),
  JSON.stringify(
    {
      endpoints: stack.endpoints,
      names: stack.names,
      // For `admin topup:query`: the simulator's throwaway keys only, never a real Alipay key.
      ...(stack.payments.simulator && { payments: stack.payments.endpoint }),
      // For `admin account:invite` (lib/ship/admin/console-invite.ts).
      cognito: {
        endpoint: stack.console.cognito.endpoint,
        region: stack.console.cognito.region,
        userPoolId: stack.console.cognito.userPoolId,
        clientId: stack.console.cognito.clientId,
      },
      pid: process.pid,
    },
    null,
    2,
  ),
);
const built = await consoleBuild;
if (built.error) console.error(`The console could not be built (the API works without it): ${built.error.message}`);

const { baseUrl, demo } = stack;
const upstreamLines = Object.values(stack.upstreams).map(
  (upstream) =>
    `  ${describeUpstream(upstream)}\n                ${
      upstream.simulator
        ? 'add "[simulate:fail]" to a prompt to see a failure'
        : 'billed for real; reference URLs must be public (it cannot fetch from 127.0.0.1)'
    }`,
);
console.log(`
Video generation service is up in ${((Date.now() - started) / 1000).toFixed(1)} s.

  Base URL      ${baseUrl}
  Demo account  ${demo.accountId} (100 CNY on first start)
  Demo API key  ${demo.apiKey}
  API docs      ${baseUrl}/docs (the OpenAPI document: ${baseUrl}/api/v1/openapi.json)
  Console       ${stack.console.url}
  Demo login    ${demo.console.email} / ${demo.console.password}
                sign-ups confirm with the code ${stack.console.cognito.confirmationCode} (no email is sent locally)
${upstreamLines.join('\n')}
  Top-ups       ${
    stack.payments.simulator
      ? `the Alipay simulator (${stack.payments.endpoint.gatewayUrl}): the console's Top up page pays with a button`
      : `the REAL Alipay gateway ${stack.payments.endpoint.gatewayUrl} (app ${stack.payments.endpoint.appId}): payments are real`
  }

Try:
  curl -s ${baseUrl}/api/v1/models -H "Authorization: Bearer ${demo.apiKey}"
  curl -s -X POST ${baseUrl}/api/v1/video/generate -H "Authorization: Bearer ${demo.apiKey}" \\
       -H "Content-Type: application/json" -d '{"model":"seedance-1.5-pro","prompt":"a red fox in the snow","duration":5}'
  then: curl -s ${baseUrl}/api/v1/video/tasks/<task_id> -H "Authorization: Bearer ${demo.apiKey}"
  your tasks: curl -s "${baseUrl}/api/v1/video/tasks?limit=5" -H "Authorization: Bearer ${demo.apiKey}"

Admin: npm run --silent admin -- help        Stop: Ctrl-C
`);

let stopping = false;
async function shutdown(signal: string, exitCode = 0) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  await stack.stop();
  rmSync(runtimeFile(dataDir), { force: true });
  console.log('Stopped.');
  process.exit(exitCode);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
void stack.broken.then(async (reason) => {
  if (stopping) return;
  console.error(`\n${reason}: the service no longer works as a whole; stopping. Start it again with npm start.`);
  await shutdown('failure', 1);
});

/** lib/ship/console/build.ts's buildConsole(), loaded at run time (a variable specifier: no compile-time dependency). */
async function buildConsole(): Promise<string> {
  const modulePath = '../lib/ship/console/build.js';
  const { buildConsole: build } = (await import(modulePath)) as { buildConsole: () => Promise<string> };
  return build();
}

/** In persistent mode the demo login's password survives restarts too (kept beside the data, outside git). */
function demoConsolePassword(): string | undefined {
  if (!persistent) return undefined;
  const file = join(dataDir, 'demo-console-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = `Demo-${randomBytes(6).toString('hex')}A7`;
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** In persistent mode the demo key survives restarts (kept beside the data, outside git). */
function demoKey(): string {
  if (!persistent) return generateApiKey();
  const file = join(dataDir, 'demo-api-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = generateApiKey();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

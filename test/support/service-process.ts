/**
 * `npm start` as a separate process (bin/local.ts in its own process group), for the tests that kill the
 * whole service with kill -9 and start it again on the same data directory.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { withoutUpstreamVariables } from '../../lib/dev/local/upstream-environment.js';
import { withoutPaymentVariables } from '../../lib/dev/local/payment-environment.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { pollUntil } from './test-stack.js';

export async function startService(options: {
  port: number;
  dataDir: string;
  demoKey: string;
  /** Appends the service's output (and its handlers' logs, at `logLevel`) to this file; default: discarded. */
  logFile?: string;
  logLevel?: string;
}): Promise<ChildProcess> {
  const log = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const started = spawn(
    join(REPOSITORY_ROOT, 'node_modules/.bin/tsx'),
    ['--disable-warning=ExperimentalWarning', 'bin/local.ts'],
    {
      cwd: REPOSITORY_ROOT,
      env: {
        // Never the developer's own ARK_API_KEY: that would send these runs (and their costs) to the real Ark.
        ...withoutPaymentVariables(withoutUpstreamVariables(process.env)),
        DATA_DIR: options.dataDir,
        PORT: String(options.port),
        DEMO_API_KEY: options.demoKey,
        POWERTOOLS_LOG_LEVEL: options.logLevel ?? 'ERROR',
        DEFAULT_RATE_LIMIT_PER_SECOND: '1000',
      },
      detached: true, // its own process group, so the kill takes DynamoDB Local's JVM with it
      stdio: log === undefined ? 'ignore' : ['ignore', log, log],
    },
  );
  if (log !== undefined) closeSync(log);
  // A start that never answers must not leave its group behind.
  await pollUntil(
    () =>
      fetch(`http://127.0.0.1:${options.port}/api/v1/models`, {
        headers: { authorization: `Bearer ${options.demoKey}` },
      }).then(
        (r) => r.status,
        () => 0,
      ),
    (status) => status === 200,
    // Generous: a first start may build the bundles, on a machine other work shares.
    { timeoutMs: 180_000, intervalMs: 200 },
  ).catch((error: unknown) => {
    killGroup(started, 'SIGKILL');
    throw error;
  });
  return started;
}

export function killGroup(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (child?.pid) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Ctrl-C to the whole group, and wait until the service has exited. */
export async function stopService(child: ChildProcess | undefined): Promise<void> {
  killGroup(child, 'SIGINT');
  await new Promise((resolve) => (child && child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
}

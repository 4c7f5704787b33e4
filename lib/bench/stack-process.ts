/**
 * Child entry: the whole local stack (lib/local/local-stack.ts) in a process of its own, so that a load
 * generator or a test never shares its event loop, and a test can kill -9 it. Options come as JSON in
 * BENCH_STACK_OPTIONS (LocalStackOptions). It answers with a `ready` message, serves a small control
 * endpoint (the simulated upstream's jobs), and stops on SIGTERM/SIGINT.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startLocalStack } from '../local/local-stack.js';
import type { LocalStack, LocalStackOptions } from '../local/local-stack.js';
import { sendToParent } from './child.js';

export interface StackReady {
  type: 'ready';
  baseUrl: string;
  demo: { accountId: string; apiKey: string };
  endpoints: LocalStack['endpoints'];
  names: { tables: Record<string, string>; videoBucket: string; stateMachine: string };
  /** GET {control}/upstream-jobs: UpstreamJobsSummary. */
  control: string;
  startedInMs: number;
}

/** What the control endpoint answers on /upstream-jobs. */
export interface UpstreamJobsSummary {
  total: number;
  byStatus: Record<string, number>;
  prompts: Record<string, number>;
}

/** What the control endpoint answers on /executions, per execution. */
export interface ExecutionSummary {
  name: string;
  status: string;
  transitions: number;
  historyEvents: number;
}

const options = JSON.parse(process.env['BENCH_STACK_OPTIONS'] ?? '{}') as LocalStackOptions;
const started = Date.now();
const stack = await startLocalStack(options);
if (options.dataDir) {
  // As bin/local.ts does: where the emulators are, for anyone opening the same data.
  writeFileSync(
    join(options.dataDir, 'local-stack.json'),
    JSON.stringify({ endpoints: stack.endpoints, names: stack.names, pid: process.pid }),
  );
}

// What the simulated upstream holds: how many jobs, by status and by prompt (a test's way to count jobs per task);
// on /executions, each execution's name, status, transitions and history events.
const control = createServer((req, res) => {
  if (req.url === '/executions') {
    void stack.workflow.executions().then((records) => {
      const rows = records.map(({ name, status, transitions, historyEvents }) => ({
        name,
        status,
        transitions,
        historyEvents,
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(rows));
    });
    return;
  }
  const summary: UpstreamJobsSummary = { total: 0, byStatus: {}, prompts: {} };
  for (const job of stack.upstream.jobs()) {
    summary.total += 1;
    summary.byStatus[job.status] = (summary.byStatus[job.status] ?? 0) + 1;
    summary.prompts[job.prompt] = (summary.prompts[job.prompt] ?? 0) + 1;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(summary));
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));

let stopping = false;
const shutdown = async (exitCode = 0) => {
  if (stopping) return;
  stopping = true;
  control.close();
  await stack.stop();
  process.exit(exitCode);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
// A child of the stack (API, workflow) that dies ends this process too, loudly: the bench or test that started
// it then fails on the exit instead of waiting on a stack that no longer answers.
void stack.broken.then((reason) => {
  if (stopping) return;
  console.error(reason);
  return shutdown(1);
});

const ready: StackReady = {
  type: 'ready',
  baseUrl: stack.baseUrl,
  demo: stack.demo,
  endpoints: stack.endpoints,
  names: stack.names,
  control: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
  startedInMs: Date.now() - started,
};
sendToParent(ready as unknown as Record<string, unknown>);

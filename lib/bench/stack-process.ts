/**
 * Child entry: the whole local stack (lib/local/local-stack.ts) in a process of its own, so that a load generator
 * never shares its event loop and a test can kill -9 it. Options: LocalStackOptions as JSON in BENCH_STACK_OPTIONS.
 * Answers `ready`, serves a control endpoint (the simulated upstream's jobs, the executions), stops on SIGTERM.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startLocalStack } from '../local/local-stack.js';
import type { LocalStackOptions } from '../local/local-stack.js';
import type { ExecutionRecord } from '../local/step-functions-server.js';
import { sendToParent } from './child.js';

export type StackReady = typeof ready;
/** GET {control}/upstream-jobs: jobs in all, by status, by prompt (a test's way to count jobs per task). */
export type UpstreamJobsSummary = ReturnType<typeof upstreamJobs>;
export type ExecutionSummary = ReturnType<typeof summary>;

const options = JSON.parse(process.env['BENCH_STACK_OPTIONS'] ?? '{}') as LocalStackOptions;
const stack = await startLocalStack(options);
if (options.dataDir) {
  // As bin/local.ts does: where the emulators are, for anyone opening the same data.
  const { endpoints, names } = stack;
  writeFileSync(join(options.dataDir, 'local-stack.json'), JSON.stringify({ endpoints, names, pid: process.pid }));
}

function upstreamJobs() {
  const summary = { total: 0, byStatus: {} as Record<string, number>, prompts: {} as Record<string, number> };
  for (const { status, prompt } of stack.upstream.jobs()) {
    summary.total += 1;
    summary.byStatus[status] = (summary.byStatus[status] ?? 0) + 1;
    summary.prompts[prompt] = (summary.prompts[prompt] ?? 0) + 1;
  }
  return summary;
}
// GET /executions: each execution's name, transitions and history events.
const summary = (e: ExecutionRecord) => ({ name: e.name, transitions: e.transitions, historyEvents: e.historyEvents });
const server = createServer((req, res) => {
  const answer = (value: unknown) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  if (req.url !== '/executions') return answer(upstreamJobs());
  void stack.workflow.executions().then((records) => answer(records.map(summary)));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

let stopping = false;
const shutdown = async (exitCode = 0) => {
  if (stopping) return;
  stopping = true;
  server.close();
  await stack.stop();
  process.exit(exitCode);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
// A child of the stack (API, workflow) that dies ends this process too, loudly: the bench or test then fails on
// the exit instead of waiting on a stack that no longer answers.
void stack.broken.then((reason) => {
  if (stopping) return;
  console.error(reason);
  return shutdown(1);
});

const { baseUrl, demo, endpoints, names } = stack;
const control = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const ready = { baseUrl, demo, endpoints, names, control };
sendToParent(ready);

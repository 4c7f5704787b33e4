/**
 * Child entry: the whole local stack (local-stack.ts) in a process group of its own, forked by
 * stack-child-client.ts, so that a load generator never shares its event loop and a test can kill -9 it all.
 * Answers `ready`, serves a control endpoint (the simulated upstream's jobs, the executions), stops on `stop`.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { childOfLocalStack, reportStartFailure, sendToParent } from './forked-process.js';
import { startLocalStack } from './local-stack.js';
import type { LocalStack, LocalStackOptions } from './local-stack.js';
import type { ExecutionRecord } from './step-functions-server.js';

export type StackReady = Awaited<ReturnType<typeof ready>>;
/** GET {control}/upstream-jobs: jobs in all, by status, by prompt (a test's way to count jobs per task). */
export type UpstreamJobsSummary = ReturnType<typeof upstreamJobs>;
export type ExecutionSummary = ReturnType<typeof summary>;

let [stack, stopping] = [undefined as LocalStack | undefined, false];
async function shutdown(exitCode: number) {
  if (stopping) return;
  stopping = true;
  await stack?.stop();
  process.exit(exitCode);
}
// The parent gone (a bench killed): the stack stops in order, its JVM with it.
const onParentGone = () => void shutdown(1);
const options = childOfLocalStack<LocalStackOptions>('stack-child', () => stopping, onParentGone);
process.on('message', (message: { type: string }) => message.type === 'stop' && void shutdown(0));
stack = await startLocalStack(options).catch(reportStartFailure);
// A child of the stack (API, workflow) that dies ends this process too, loudly: the bench or test then fails on
// the exit instead of waiting on a stack that no longer answers.
void stack.broken.then((reason) => {
  if (stopping) return;
  console.error(reason);
  return shutdown(1);
});

function upstreamJobs(local: LocalStack) {
  const jobs = { total: 0, byStatus: {} as Record<string, number>, prompts: {} as Record<string, number> };
  for (const { status, prompt } of local.upstream.jobs()) {
    jobs.total += 1;
    jobs.byStatus[status] = (jobs.byStatus[status] ?? 0) + 1;
    jobs.prompts[prompt] = (jobs.prompts[prompt] ?? 0) + 1;
  }
  return jobs;
}
const summary = (e: ExecutionRecord) => ({ name: e.name, transitions: e.transitions, historyEvents: e.historyEvents });

async function ready(local: LocalStack) {
  const { baseUrl, demo, endpoints, names } = local;
  // As bin/local.ts does: where the emulators are, for anyone opening the same data.
  if (options.dataDir)
    writeFileSync(join(options.dataDir, 'local-stack.json'), JSON.stringify({ endpoints, names, pid: process.pid }));
  // GET /executions: each execution's name, transitions and history events; anything else: the upstream's jobs.
  const server = createServer((req, res) => {
    const answer = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.url !== '/executions') return answer(upstreamJobs(local));
    void local.workflow.executions().then((records) => answer(records.map(summary)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const control = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { baseUrl, demo, endpoints, names, control };
}
await sendToParent({ type: 'ready', ...(await ready(stack)) });

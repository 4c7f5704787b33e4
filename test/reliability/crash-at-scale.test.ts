/**
 * Crash safety: 50 tasks in every state and three webhooks owed when the whole local stack is SIGKILLed;
 * started again on the same data, every task ends by itself with one upstream job, the balances of its 10
 * accounts are exact, no upstream slot stays taken, a video URL given before still serves the video, and each
 * webhook owed is delivered once per try with its one webhook-id. Held generations, transfers and webhook
 * tries, not timings, keep each in its state at the kill, however slow the machine.
 * Owns its stack: it kills the whole stack and starts it again.
 */
import { TEST_UPSTREAMS } from '../support/test-stack.js';
import { labelMp4, readAigcLabel } from '../../functions/core/mp4-label/index.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { storedSpend } from '../support/stored-money.js';
import { afterAll, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { pendingWebhookKeys, webhookMessageId } from '../../functions/core/webhook.js';
import { startStackProcess } from '../../lib/dev/local/stack-child-client.js';
import type { StackProcess } from '../../lib/dev/local/stack-child-client.js';
import type { LocalStackOptions } from '../../lib/dev/local/local-stack.js';
import { askedAgainWhileBusy, callApi, pollUntil } from '../support/test-stack.js';
import { FINAL, sumUnits, toUnits } from './support/money.js';
import { createUnstartedTask, taskRecordFor } from '../support/task-records.js';
import { mediaUrl } from '../support/media-server.js';

/** A real image the simulator downloads (it fetches every reference, as the upstream does). */
const REFERENCE_IMAGE = await mediaUrl('png');

const FIXTURE = readFileSync(new URL('../../lib/dev/fixtures/sample.mp4', import.meta.url));
const RUN = randomUUID().slice(0, 8);
const dataDir = mkdtempSync(join(tmpdir(), 'vgs-crash-scale-'));
// The upstream finishes a job 1.5 s after creation and the first poll comes 8 s after the start: in
// between, a status query finds the job done and records `transferring` (docs/task-lifecycle.md, "Live status"). The simulated
// upstream keeps its jobs in the data directory, as a real one outlives our crash.
const OPTIONS: LocalStackOptions = {
  dataDir,
  // The lite model this test pays with is offered on Volcengine only (docs/providers/ark.md, "Models per platform").
  upstreams: TEST_UPSTREAMS,
  pollIntervalSeconds: 8,
  upstream: { queuedMs: 400, runningMs: 1_100 },
  environment: { DEFAULT_RATE_LIMIT_PER_SECOND: '100000', POWERTOOLS_LOG_LEVEL: 'WARN' },
};
const LITE = { model: 'seedance-1.0-lite-i2v', modelId: '0d5a8f3e-9c2b-4a7d-b6e1-7f4c2d9a8e33', costUnits: 30_000 };
const OPENING_YUAN = 1_000;
// Sized so the run takes about a minute on 2 cores beside other test files; the bench goes further.
const WAVE = { success: 12, fail: 3, cancel: 5, transferring: 12, running: 12, orphan: 6, hooked: 1 } as const;
const ACCOUNTS = 10;

let stack: StackProcess | undefined;
// The customers' webhook receiver: answers 200, but holds the first try for the task named in `hold`.
const received: { headers: IncomingHttpHeaders; taskId: string }[] = [];
const hold = { taskId: '', held: undefined as ServerResponse | undefined };
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { task_id: taskId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task_id: string };
    received.push({ headers: req.headers, taskId });
    if (taskId === hold.taskId && !hold.held) hold.held = res;
    else res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const HOOK_URL = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

afterAll(async () => {
  await stack?.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

type Wave = 'success' | 'fail' | 'cancel' | 'transferring' | 'running' | 'orphan' | 'hooked';
interface Submitted {
  id: string;
  prompt: string;
  wave: Wave;
  account: { accountId: string; key: string };
  costUnits: number;
}

it('every task and webhook in flight at a kill -9 finishes after a restart, once, with balances exact', async () => {
  stack = await startStackProcess(OPTIONS);
  let api = { baseUrl: stack.ready.baseUrl };
  const accounts = await Promise.all(
    Array.from({ length: ACCOUNTS }, async (_, i) => {
      const accountId = `crash-${RUN}-${i}`;
      await stack!.admin.createAccount(accountId, String(OPENING_YUAN));
      return { accountId, key: (await stack!.admin.createKey({ accountId })).key };
    }),
  );
  const tasks: Submitted[] = [];
  const waves = (...names: Wave[]) => tasks.filter((task) => names.includes(task.wave));
  const submit = async (wave: Wave, index: number, marker = '', webhookUrl?: string): Promise<Submitted> => {
    const prompt = `${wave}-${index}-${RUN}${marker}`;
    const account = accounts[index % ACCOUNTS]!;
    const response = await askedAgainWhileBusy(() =>
      callApi<{ task_id: string; cost: number }>(api, 'POST', '/api/v1/video/generate', {
        key: account.key,
        body: {
          model: LITE.model,
          prompt,
          duration: 5,
          image_urls: [REFERENCE_IMAGE],
          ...(webhookUrl && { webhook_url: webhookUrl }),
        },
      }),
    );
    expect(response.status, `${JSON.stringify(response.body)}\n${stack!.child.recentOutput()}`).toBe(200);
    return { id: response.body.data.task_id, prompt, wave, account, costUnits: toUnits(response.body.data.cost) };
  };
  const submitWave = async (wave: Wave, count: number, marker: (i: number) => string = () => '') =>
    tasks.push(...(await Promise.all(Array.from({ length: count }, (_, i) => submit(wave, i, marker(i))))));
  // When each phase ended (s since the start): a census that is not as expected says how slow the machine was.
  const startedAt = Date.now();
  const phases: string[] = [];
  const phase = (name: string) => phases.push(`${name} ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  const statusOf = async (task: Submitted) =>
    (await callApi<{ status: string }>(api, 'GET', `/api/v1/video/tasks/${task.id}`, { key: task.account.key })).body
      .data.status;

  // First those that finish before the crash (most succeed, some fail upstream and are refunded); while they
  // run, some cancelled by their client while queued upstream (refunded).
  await Promise.all([submitWave('success', WAVE.success), submitWave('fail', WAVE.fail, () => ' [simulate:fail]')]);
  // Held in Ark's queue, where a cancel is still possible (docs/task-lifecycle.md, "Cancel").
  await submitWave('cancel', WAVE.cancel, () => ' [simulate:queued]');
  // Counts by wave and status. A wait that times out says where each wave stands, and where each task
  // still on its way to a job stands: in the waiting room or not, holding a slot or not.
  const census = (snapshot: Map<string, string>) => {
    const counts: Record<string, Record<string, number>> = {};
    for (const task of tasks) {
      const status = snapshot.get(task.id) ?? 'missing';
      counts[task.wave] = { ...counts[task.wave], [status]: (counts[task.wave]?.[status] ?? 0) + 1 };
    }
    return counts;
  };
  const records = async () => new Map((await stack!.tasks()).map((task) => [task.task_id, task]));
  const statuses = async () => new Map([...(await records())].map(([id, task]) => [id, task.status]));
  const whereStuck = async () => {
    const room = await stack!.db.send(new ScanCommand({ TableName: stack!.ready.names.tables['upstreamQueue'] }));
    const waiting = new Set((room.Items ?? []).map((entry) => entry['task_id'] as string));
    const ago = (iso: string) => `${((Date.now() - Date.parse(iso)) / 1000).toFixed(0)} s ago`;
    // The orphans wait for the restart by design.
    const waveOf = new Map(tasks.map((task) => [task.id, task.wave]));
    return [...(await records()).values()]
      .filter((task) => task.status === 'pending' && waveOf.get(task.task_id) !== 'orphan')
      .slice(0, 10)
      .map((task) =>
        [
          `${waveOf.get(task.task_id) ?? '?'} ${task.task_id}`,
          waiting.has(task.task_id) ? 'in the room' : 'not in the room',
          `slot ${task.upstream_slot ?? 'none'}`,
          `created ${ago(task.created_at)}`,
          `updated ${ago(task.updated_at)}`,
        ].join(', '),
      );
  };
  const explained = <T>(wait: Promise<T>) =>
    wait.catch(async (error: Error) => {
      const stuck = (await whereStuck()).join('\n');
      throw new Error(`${error.message}\npending:\n${stuck}\nstack output:\n${stack!.child.recentOutput()}`);
    });
  const untilCensus = (done: (counts: ReturnType<typeof census>) => boolean, timeoutMs: number) =>
    explained(pollUntil(async () => census(await statuses()), done, { timeoutMs, intervalMs: 250 }));
  // Each cancelled once its upstream job exists (its id recorded; the task stays `pending` while Ark still
  // queues the job, 30 s), so that each has its one job; a cancel that lands before the job is created
  // rightly leaves none. The table is read, not the API, whose live query could move a task on.
  const inTable = async (task: Submitted) =>
    (
      await stack!.db.send(
        new GetCommand({
          TableName: stack!.ready.names.tables['tasks'],
          Key: { task_id: task.id },
          ConsistentRead: true,
        }),
      )
    ).Item ?? {};
  await Promise.all(
    waves('cancel').map(async (task) => {
      const item = await explained(
        pollUntil(
          () => inTable(task),
          (seen) => seen['upstream_job_id'] !== undefined || seen['status'] !== 'pending',
          { timeoutMs: 240_000, intervalMs: 500 },
        ),
      );
      expect(item['status']).toBe('pending');
      // As a client would: a cancel that answers 5xx (a store too slow for the function's time) or 429 (the
      // task being started upstream) is sent again; repeated after the refund, it answers the refunded task.
      const answers: string[] = [];
      let response: Awaited<ReturnType<typeof callApi<{ status: string }>>>;
      do {
        response = await callApi<{ status: string }>(api, 'POST', `/api/v1/video/tasks/${task.id}/cancel`, {
          key: task.account.key,
        });
        answers.push(`${response.status} ${JSON.stringify(response.body)}`);
      } while ((response.status >= 500 || response.status === 429) && answers.length < 5);
      if (answers.length > 1) phase(`cancel of ${task.id} answered ${answers.length - 1} × 5xx or 429 first`);
      const seen = `${answers.join('\n')}\nstack output:\n${stack!.child.recentOutput()}`;
      expect(response.body.data?.status, seen).toBe('refunded');
    }),
  );
  phase('cancelled');
  await untilCensus(
    (counts) => counts['success']?.['success'] === WAVE.success && counts['fail']?.['failed'] === WAVE.fail,
    240_000,
  );
  phase('first wave ended');
  // Then a wave to catch in `transferring` and one in `running`: their transfers and generations are held by the
  // simulated upstream until the test releases them after the restart, so they are still so at the kill.
  await Promise.all([
    submitWave('transferring', WAVE.transferring, () => ' [simulate:held-download]'),
    submitWave('running', WAVE.running, () => ' [simulate:held]'),
  ]);
  phase('held waves submitted');
  // Each of those has its job.
  await untilCensus((counts) => !counts['running']?.['pending'], 240_000);
  phase('running wave started');
  // A query that finds the upstream job done records `transferring`; the execution polls only later.
  await pollUntil(
    () => Promise.all(waves('transferring').map(statusOf)),
    (seen) => seen.every((status) => status !== 'running' && status !== 'pending'),
    { timeoutMs: 240_000, intervalMs: 150 },
  );
  phase('transferring wave transferring');
  const tables = {
    tasks: stack.ready.names.tables['tasks']!,
    accounts: stack.ready.names.tables['accounts']!,
    apiKeys: stack.ready.names.tables['apiKeys']!,
    ledger: stack.ready.names.tables['ledger']!,
    idempotency: stack.ready.names.tables['idempotency']!,
  };
  // Last, some charged whose execution never started (createUnstartedTask), just before the kill: the
  // reconciler leaves tasks younger than 120 s alone, so it cannot start them first.
  await Promise.all(
    Array.from({ length: WAVE.orphan }, async (_, i) => {
      const account = accounts[i % ACCOUNTS]!;
      const orphan = orphanTask(account.accountId, hashApiKey(account.key), `orphan-${i}-${RUN}`);
      await createUnstartedTask(stack!.db, tables, orphan);
      tasks.push({ id: orphan.task_id, prompt: orphan.generation.prompt, wave: 'orphan', account, costUnits: 30_000 });
    }),
  );
  phase('orphans written');
  // A video URL given out before the kill (it names the local S3's port, which the data directory keeps).
  const videoTask = waves('success')[0]!;
  const videoOf = async (task: Submitted) =>
    (
      await callApi<{ video_url: string | null }>(api, 'GET', `/api/v1/video/tasks/${task.id}`, {
        key: task.account.key,
      })
    ).body.data.video_url;
  const videoUrl = (await videoOf(videoTask))!;
  expect(videoUrl).toMatch(/^http/);
  // Two tasks as a crash would leave them, written straight to the table: final, webhook owed, no message.
  const owner = accounts[0]!;
  const owed = (fields: Partial<TaskRecord>) => {
    const task = taskRecordFor({ accountId: owner.accountId, keyHash: hashApiKey(owner.key) }, fields);
    task.generation.webhookUrl = HOOK_URL;
    Object.assign(task, pendingWebhookKeys(task.task_id, task.created_at));
    return task;
  };
  const neverQueued = owed({
    status: 'failed',
    error_message: 'generation failed: upstream said no',
    finished_at: new Date().toISOString(),
  });
  const lostRetry = owed({
    status: 'success',
    video_url: 'https://videos.example.com/lost.mp4',
    video_url_expires_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
    finished_at: new Date().toISOString(),
    webhook_state: 'retrying',
    webhook_attempts: 2,
  });
  lostRetry.webhook_due_at = new Date(Date.now() - 60_000).toISOString();
  for (const task of [neverQueued, lostRetry]) {
    await stack.db.send(new PutCommand({ TableName: tables.tasks, Item: task }));
  }
  // Last, a task whose webhook's first try is held by the receiver at the kill (its message in flight in the
  // in-memory queue).
  const live = await submit('hooked', 0, '', HOOK_URL);
  hold.taskId = live.id;
  tasks.push(live);
  await pollUntil(async () => hold.held !== undefined, Boolean, { timeoutMs: 240_000, intervalMs: 100 });
  expect(tasks).toHaveLength(Object.values(WAVE).reduce((sum, count) => sum + count, 0));
  phase('webhook try held');
  const atKill = await statuses();
  const output = stack.child.recentOutput();
  await stack.crash();

  expect(census(atKill), `phases: ${phases.join(', ')}\nstack output:\n${output}`).toEqual({
    success: { success: WAVE.success },
    fail: { failed: WAVE.fail },
    cancel: { refunded: WAVE.cancel },
    transferring: { transferring: WAVE.transferring },
    running: { running: WAVE.running },
    orphan: { pending: WAVE.orphan },
    hooked: { success: WAVE.hooked },
  });
  // The held try ends with the crash: its connection is gone.
  hold.held?.destroy();

  // The same data; polls every second now, so that the test need not wait out the first long delay. The
  // held generations and transfers go on, the transfers from the start, as after any crash.
  stack = await startStackProcess({ ...OPTIONS, pollIntervalSeconds: 1 });
  api = { baseUrl: stack.ready.baseUrl };
  const release = await fetch(
    `${stack.ready.endpoints.upstreams.ark.baseUrl}/simulator/release?prompt=${encodeURIComponent(RUN)}`,
    { method: 'POST' },
  );
  expect(await release.json()).toEqual({ released: WAVE.transferring + WAVE.running });
  phase('restarted');
  const finals = await pollUntil(
    statuses,
    (snapshot) => tasks.every((task) => FINAL.has(snapshot.get(task.id) ?? '')),
    { timeoutMs: 240_000, intervalMs: 250 },
  );

  const expected: Record<Wave, string> = {
    success: 'success',
    fail: 'failed',
    cancel: 'refunded',
    transferring: 'success',
    running: 'success',
    orphan: 'success',
    hooked: 'success',
  };
  phase('all final');
  console.log(`crash at scale: ${phases.join(', ')}`);
  const wrong = tasks.filter((task) => finals.get(task.id) !== expected[task.wave]);
  expect(wrong.map((task) => `${task.wave}: ${finals.get(task.id)}`)).toEqual([]);

  // One upstream job per task, never a second one after the restart.
  const jobs = await stack.upstreamJobs();
  expect(tasks.map((task) => jobs.prompts[task.prompt] ?? 0).filter((count) => count !== 1)).toEqual([]);

  for (const account of accounts) {
    const charged = sumUnits(
      tasks
        .filter((task) => task.account === account && finals.get(task.id) === 'success')
        .map((task) => task.costUnits),
    );
    const balance = await callApi<{ balance: number }>(api, 'GET', '/api/v1/account/balance', { key: account.key });
    expect(toUnits(balance.body.data.balance), account.accountId).toBe(toUnits(OPENING_YUAN) - charged);
    // The key's spend is the sum of its shards (docs/money-and-ledger.md, "Balance shards").
    const spent = await storedSpend(stack.db, stack.ready.names.tables['apiKeys']!, hashApiKey(account.key));
    expect(spent, account.accountId).toBe(charged);
  }

  // The URL given before the kill serves the same video after the restart.
  expect(await videoOf(videoTask)).toBe(videoUrl);
  const video = await fetch(videoUrl);
  expect(video.status).toBe(200);
  // The upstream's file with its AI-content label (docs/compliance.md), nothing else changed.
  const served = Buffer.from(await video.arrayBuffer());
  expect(Buffer.from(labelMp4(FIXTURE, readAigcLabel(served)!).bytes).equals(served)).toBe(true);

  // No upstream slot outlives the crash: every job is final, so every slot was given back (or repaired).
  const slots = await pollUntil(
    async () => (await stack!.admin.upstreamAccounts()).accounts.map((account) => account.in_use),
    (inUse) => inUse.every((count) => count === 0),
    { timeoutMs: 60_000 },
  );
  expect(slots.length).toBeGreaterThan(0);

  // Every webhook owed at the kill is delivered. The held try was never recorded (the kill came first): one
  // try for it, as for the never-queued one; the lost retry carries on from its two.
  const webhookOf = async (taskId: string) =>
    (
      await callApi<{ webhook: { state: string; attempts: number } }>(api, 'GET', `/api/v1/video/tasks/${taskId}`, {
        key: owner.key,
      })
    ).body.data.webhook;
  const views = await Promise.all(
    [live.id, neverQueued.task_id, lostRetry.task_id].map((taskId) =>
      pollUntil(
        () => webhookOf(taskId),
        (view) => view.state === 'delivered',
        { timeoutMs: 120_000, intervalMs: 250 },
      ),
    ),
  );
  expect(views.map((view) => view.attempts)).toEqual([1, 1, 3]);
  const requestsOf = (taskId: string) => received.filter((request) => request.taskId === taskId);
  expect(requestsOf(live.id)).toHaveLength(2);
  expect(new Set(requestsOf(live.id).map((request) => request.headers['webhook-id']))).toEqual(
    new Set([webhookMessageId(live.id, 'task.success')]),
  );
  expect(requestsOf(neverQueued.task_id).map((request) => request.headers['webhook-id'])).toEqual([
    webhookMessageId(neverQueued.task_id, 'task.failed'),
  ]);
  expect(requestsOf(lostRetry.task_id).map((request) => request.headers['webhook-id'])).toEqual([
    webhookMessageId(lostRetry.task_id, 'task.success'),
  ]);
}, 600_000);

function orphanTask(accountId: string, keyHash: string, prompt: string): TaskRecord {
  const task = taskRecordFor({ accountId, keyHash }, { cost_units: LITE.costUnits });
  task.generation = {
    ...task.generation,
    modelId: LITE.modelId,
    modelName: LITE.model,
    prompt,
    imageUrls: [REFERENCE_IMAGE],
  };
  return task;
}

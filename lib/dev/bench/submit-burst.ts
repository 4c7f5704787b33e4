/**
 * Section `submits`, the charge under a burst (docs/money-and-ledger.md, "Balance shards"): one account and one
 * key, 1,000 submits at once, then 200 a second for 60 s, then a balance that runs out in the middle. Each submit
 * is sent once (429s counted); the money is checked to the unit and the charges' retries are read off the tasks.
 */
import { randomUUID } from 'node:crypto';
import type { TaskRecord } from '../../../functions/core/task.js';
import type { StackProcess } from '../local/stack-child-client.js';
import { check, fixed } from './report.js';
import { BENCH_ENVIRONMENT, countBy, env, percentile, sleep, submitTask, withStack } from './task-client.js';

type Answer = Awaited<ReturnType<typeof submitTask>>;
type Log = (line: string) => void;

/** The upstream never finishes: tasks wait for it, so the bench measures the submit, not the workflow. */
const WAITING_UPSTREAM = { queuedMs: 3_600_000, runningMs: 1_000 };

export async function runSubmitBurst(log: Log) {
  log(
    `starting the local stack (LOCAL_UNRESERVED_CONCURRENCY=${process.env['LOCAL_UNRESERVED_CONCURRENCY'] ?? 'default'}) ...`,
  );
  return withStack({ upstream: WAITING_UPSTREAM, environment: BENCH_ENVIRONMENT }, async (stack) => {
    const lone = await openAccount(stack, 'lone', '100000');
    const loneMs: number[] = [];
    for (let i = 0; i < 10; i += 1) loneMs.push((await submitTask(stack, lone.key, `lone #${i}`)).ms);
    const loneP50 = percentile(loneMs, 0.5);
    log(`a lone submit: p50 ${fixed(loneP50, 0)} ms`);

    const burstCount = env('BENCH_SUBMIT_BURST', 1_000);
    const burst = await openAccount(stack, 'burst', '100000');
    const burstAnswers = await Promise.all(
      Array.from({ length: burstCount }, (_, i) => submitTask(stack, burst.key, `burst #${i}`)),
    );
    const burstChecks = await report(stack, log, `${burstCount} at once`, burst, burstAnswers, loneP50);

    const [rate, secondsLong] = [env('BENCH_SUBMIT_RATE', 200), env('BENCH_SUBMIT_SECONDS', 60)];
    const steady = await openAccount(stack, 'steady', '100000');
    const steadyAnswers = await paced(stack, steady.key, rate, secondsLong);
    const steadyChecks = await report(stack, log, `${rate}/s for ${secondsLong} s`, steady, steadyAnswers, loneP50);

    // Enough for exactly `affordable` tasks (the cost from the lone account's answers), 2× that sent at once.
    const cost = Math.round((await submitTask(stack, lone.key, 'cost')).cost! * 10_000);
    const affordable = env('BENCH_SUBMIT_AFFORDABLE', 300);
    const short = await openAccount(stack, 'short', String((affordable * cost + cost - 1) / 10_000));
    const shortAnswers = await Promise.all(
      Array.from({ length: 2 * affordable }, (_, i) => submitTask(stack, short.key, `short #${i}`)),
    );
    const ok = shortAnswers.filter((a) => a.outcome === 'ok').length;
    const refused402 = shortAnswers.filter((a) => a.outcome.startsWith('402')).length;
    const left = await balanceUnits(stack, short.key);
    log(`runs out: ${ok} × 200, ${refused402} × 402, balance left ${left} units (cost ${cost})`);
    const runsOut = check(
      'Balance runs out mid-burst: 200s, 402s, units left',
      `${ok}, ${refused402}, ${left}`,
      `${affordable}, ${affordable}, ${cost - 1}`,
      ok === affordable && refused402 === affordable && left === cost - 1,
    );
    return { checks: [...burstChecks, ...steadyChecks, runsOut] };
  });
}

async function openAccount(stack: StackProcess, prefix: string, yuan: string) {
  const accountId = `${prefix}-${randomUUID().slice(0, 8)}`;
  await stack.admin.createAccount(accountId, yuan);
  const { key } = await stack.admin.createKey({ accountId, ratePerSecond: 1_000_000 });
  return { accountId, key, openingUnits: Math.round(Number(yuan) * 10_000) };
}

/** `rate` submits a second for `seconds`, each sent on its tick whatever the others do. */
async function paced(stack: StackProcess, key: string, rate: number, seconds: number): Promise<Answer[]> {
  const started = Date.now();
  const sent: Promise<Answer>[] = [];
  for (let i = 0; i < rate * seconds; i += 1) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    sent.push(submitTask(stack, key, `steady #${i}`));
  }
  return Promise.all(sent);
}

/** The account's tasks, what they were charged in the end, the charges' retries, the balance and the key's spend. */
async function readMoney(stack: StackProcess, account: { accountId: string; key: string }) {
  const all: TaskRecord[] = await stack.tasks(account.accountId);
  const retries = all.map((t) => (t as { charge_retries?: { conflict: number; shard_short: number } }).charge_retries);
  // A task that failed upstream meanwhile was refunded: it is charged nothing in the end.
  const refunded = all.filter((t) => t.status === 'failed' || t.status === 'refunded');
  return {
    tasks: all.length,
    refunded: refunded.length,
    conflict: retries.reduce((n, r) => n + (r?.conflict ?? 0), 0),
    shardShort: retries.reduce((n, r) => n + (r?.shard_short ?? 0), 0),
    charged: all.filter((t) => !refunded.includes(t)).reduce((n, t) => n + t.cost_units, 0),
    balance: await balanceUnits(stack, account.key),
    spent: Number((await stack.admin.listKeys(account.accountId))[0]?.spent_units ?? 0),
  };
}

/** Until the account's tasks stop changing in number for 3 s (at most 60 s). */
async function quiet(stack: StackProcess, accountId: string): Promise<void> {
  const until = Date.now() + 60_000;
  let [count, since] = [-1, Date.now()];
  while (Date.now() < until && Date.now() - since < 3_000) {
    const now = (await stack.tasks(accountId)).length;
    if (now !== count) [count, since] = [now, Date.now()];
    await sleep(500);
  }
}

async function balanceUnits(stack: StackProcess, key: string): Promise<number> {
  const { data } = (await (await stack.api(key, '/api/v1/account/balance')).json()) as { data: { balance: number } };
  return Math.round(data.balance * 10_000);
}

/** The answers, the latencies, the retries, and the money to the unit: tasks made = 200s, balance and spend exact. */
async function report(
  stack: StackProcess,
  log: Log,
  name: string,
  account: { accountId: string; key: string; openingUnits: number },
  answers: Answer[],
  loneP50: number,
) {
  const outcomes = countBy(answers, (a) => (a.outcome === 'ok' ? '200' : a.outcome.slice(0, 90)));
  // A handler the gateway stopped waiting for may still commit (a 500 that charged): read once all is quiet.
  await quiet(stack, account.accountId);
  const errors = stack.child
    .recentOutput()
    .split('\n')
    .filter((line) => /error/i.test(line))
    .slice(-3);
  if (errors.length > 0) log(`the stack's last errors:\n${errors.map((line) => line.slice(0, 400)).join('\n')}`);
  const ms = answers.map((a) => a.ms);
  const [p50, p99] = [percentile(ms, 0.5), percentile(ms, 0.99)];
  // Tasks may still fail upstream and be refunded while this reads: read until two readings agree.
  let reading = await readMoney(stack, account);
  for (let again = 0; again < 10; again += 1) {
    await sleep(1_000);
    const next = await readMoney(stack, account);
    const same = JSON.stringify(next) === JSON.stringify(reading);
    reading = next;
    if (same) break;
  }
  const { tasks, refunded, conflict, shardShort, charged, balance, spent } = reading;
  const ok = answers.filter((a) => a.outcome === 'ok').length;
  // "Busy": the charge kept losing to other writers of the account (the 429 this design removes).
  const busy = answers.filter((a) => a.outcome.startsWith('429') && a.outcome.includes('too many submits')).length;
  log(
    `${name}: ${JSON.stringify(outcomes)}; p50 ${fixed(p50, 0)} ms, p99 ${fixed(p99, 0)} ms; ` +
      `retried: ${conflict} conflicts, ${shardShort} short shards; tasks ${tasks} ` +
      `(${refunded} refunded since); ` +
      `balance ${balance} (expected ${account.openingUnits - charged}), key spend ${spent} (expected ${charged})`,
  );
  return [
    check(`${name}: 200s = tasks made, busy 429s`, `${ok} = ${tasks}, ${busy}`, 'equal, 0', ok === tasks && busy === 0),
    check(
      `${name}: submit p50 / p99`,
      `${fixed(p50, 0)} / ${fixed(p99, 0)} ms`,
      `p99 ≤ 2 × lone ${fixed(loneP50, 0)} ms`,
      p99 <= 2 * loneP50,
    ),
    check(
      `${name}: balance, key spend (units)`,
      `${balance}, ${spent}`,
      `${account.openingUnits - charged}, ${charged}`,
      balance === account.openingUnits - charged && spent === charged,
    ),
  ];
}

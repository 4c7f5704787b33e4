/** Starts the whole local stack for one test file (its handlers run in the stack's own child processes). */
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { TASKS_BY_ACCOUNT_INDEX } from '../../functions/adapters/runtime/resources.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { startLocalStack } from '../../lib/dev/local/local-stack.js';
import type { LocalStack, LocalStackOptions } from '../../lib/dev/local/local-stack.js';
import { servedValidator } from './openapi-validator.js';

export type { LocalStack };

/**
 * Ark on Volcengine: the per-call model the tests price with (Seedance 1.0 lite i2v) is retired on BytePlus
 * (docs/providers/ark.md, "Models per platform"), so BytePlus's stack would not offer it.
 */
export const TEST_UPSTREAMS: LocalStackOptions['upstreams'] = { ark: { kind: 'simulator', platform: 'volcengine' } };

export function startTestStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    upstream: { queuedMs: 150, runningMs: 300 },
    upstreams: TEST_UPSTREAMS,
    ...options,
    environment: { DEFAULT_RATE_LIMIT_PER_SECOND: '10000', POWERTOOLS_LOG_LEVEL: 'ERROR', ...options.environment },
  });
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: { code: number; message: string; data: T };
}

export async function callApi<T = Record<string, unknown>>(
  stack: Pick<LocalStack, 'baseUrl'>,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['authorization'] = `Bearer ${options.key}`;
  // Bytes, for a body that is not even UTF-8.
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  // Every answer of the e2e tests is checked against the OpenAPI document the stack serves (docs/api-contract.md, "OpenAPI document"),
  // fetched (once per stack) before the request, so a failure to get it never follows a request's side effects.
  const validator = await servedValidator(stack.baseUrl);
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const answer = {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as ApiResponse<T>['body'],
  };
  const problems = validator.check({ method, path, ...answer });
  if (problems.length > 0) throw new Error(`answer not as the OpenAPI document says:\n${problems.join('\n')}`);
  return answer;
}

/**
 * Sends `request` again while it answers 429, as a client does: several submits of one account at once may meet
 * each other on its balance and answer "retry" (nothing charged), more often on a busy machine.
 */
export function askedAgainWhileBusy<T>(request: () => Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
  return pollUntil(request, (answer) => answer.status !== 429, {
    timeoutMs: 300_000,
    intervalMs: 1_000,
    describe: (answer) => JSON.stringify(answer.body),
  });
}

/** Polls `probe` until `done` says so or the deadline passes; never a fixed sleep. */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  {
    // Generous by default: a deadline only ends a wait that would never end, on a machine other work shares.
    timeoutMs = 120_000,
    intervalMs = 100,
    describe = (value: T) => JSON.stringify(value),
  }: { timeoutMs?: number; intervalMs?: number; describe?: (value: T) => string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  // The pause grows by half each look, up to a second: a short wait ends fast, and a long one does not load
  // the stack that other files share with a look every 100 ms.
  const longest = Math.max(intervalMs, 1_000);
  let pause = intervalMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${describe(value)}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(longest, Math.round(pause * 1.5));
  }
}

/** A fresh account with its own key, so tests never share money. */
export async function newAccount(
  stack: Pick<LocalStack, 'admin'>,
  balanceYuan: string,
  keyOptions: { quotaYuan?: string; ratePerSecond?: number } = {},
) {
  const accountId = `acct-${Math.random().toString(36).slice(2, 10)}`;
  await stack.admin.createAccount(accountId, balanceYuan);
  const { key } = await stack.admin.createKey({ accountId, ...keyOptions });
  return { accountId, key };
}

/**
 * Every task of an account: its ids from the account index, then each record read consistently. DynamoDB Local
 * writes an index with its item, so none is missing; a Scan would hold the shared DynamoDB Local (one request at
 * a time) for every file while it reads the whole table.
 */
export async function tasksOfAccount(
  stack: Pick<LocalStack, 'db' | 'names'>,
  accountId: string,
): Promise<TaskRecord[]> {
  const ids: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await stack.db.send(
      new QueryCommand({
        TableName: stack.names.tables.tasks,
        IndexName: TASKS_BY_ACCOUNT_INDEX.name,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ProjectionExpression: 'task_id',
        ExclusiveStartKey: startKey,
      }),
    );
    ids.push(...(page.Items ?? []).map((item) => item['task_id'] as string));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const items: TaskRecord[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = ids.slice(i, i + 100).map((task_id) => ({ task_id }));
    while (keys && keys.length > 0) {
      const batch: BatchGetCommandOutput = await stack.db.send(
        new BatchGetCommand({ RequestItems: { [stack.names.tables.tasks]: { Keys: keys, ConsistentRead: true } } }),
      );
      items.push(...((batch.Responses?.[stack.names.tables.tasks] ?? []) as TaskRecord[]));
      keys = batch.UnprocessedKeys?.[stack.names.tables.tasks]?.Keys;
    }
  }
  return items;
}

/** Starts the whole local stack for one test file (its handlers run in the stack's own child processes). */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { TaskRecord } from '../../functions/core/task.js';
import { startLocalStack } from '../../lib/local/local-stack.js';
import type { LocalStack, LocalStackOptions } from '../../lib/local/local-stack.js';
import { servedValidator } from './openapi-validator.js';

export type { LocalStack };

export function startTestStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    upstream: { queuedMs: 150, runningMs: 300 },
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
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['authorization'] = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
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

/** Polls `probe` until `done` says so or the deadline passes; never a fixed sleep. */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 30_000, intervalMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
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

/** Every task of an account, read straight from the table (consistent): what the API created, nothing else. */
export async function tasksOfAccount(
  stack: Pick<LocalStack, 'db' | 'names'>,
  accountId: string,
): Promise<TaskRecord[]> {
  const items: TaskRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await stack.db.send(
      new ScanCommand({
        TableName: stack.names.tables.tasks,
        FilterExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    items.push(...((page.Items ?? []) as TaskRecord[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * The parent's side of lib/bench/stack-process.ts: starts the local stack in a child process, and reaches its
 * emulators directly (accounts, keys, task records) with the AdminStore the CLI uses.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { getItem } from '../../functions/adapters/dynamodb-client.js';
import type { LocalStackOptions } from '../local/local-stack.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { AdminStore } from '../admin/admin-store.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { spawnTsx } from './child.js';
import type { ExecutionSummary, StackReady, UpstreamJobsSummary } from './stack-process.js';

export type StackProcess = Awaited<ReturnType<typeof startStackProcess>>;
/** A GET (or `init`) answered with JSON. */
export const getJson = async <T>(url: string, init?: RequestInit) => (await (await fetch(url, init)).json()) as T;

export async function startStackProcess(options: LocalStackOptions, timeoutMs = 300_000) {
  const child = spawnTsx('lib/bench/stack-process.ts', {
    BENCH_STACK_OPTIONS: JSON.stringify({ port: 0, ...options }),
  });
  const ready = await child.answer<StackReady>(timeoutMs).catch(async (error: unknown) => {
    await child.stop(1_000);
    throw error;
  });
  const { endpoints, names } = ready;
  const client = new DynamoDBClient({
    endpoint: endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    child,
    ready,
    db,
    admin: new AdminStore(db, names.tables),
    /** The API called with `key`: a GET, or a POST of `body`. */
    api: (key: string, path: string, body?: object) =>
      fetch(`${ready.baseUrl}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body && JSON.stringify(body),
      }),
    /** The simulated Ark's base URL (its /simulator/ routes). */
    simulator: endpoints.upstreams.ark.baseUrl,
    task: (taskId: string) => getItem<TaskRecord>(db, names.tables.tasks, { task_id: taskId }),
    /** Every task record (consistent scan), optionally of one account. */
    tasks: async (accountId?: string) => {
      const filter = accountId && {
        FilterExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
      };
      const items: TaskRecord[] = [];
      const pages = paginateScan({ client: db }, { TableName: names.tables.tasks, ConsistentRead: true, ...filter });
      for await (const page of pages) items.push(...((page.Items ?? []) as TaskRecord[]));
      return items;
    },
    upstreamJobs: () => getJson<UpstreamJobsSummary>(`${ready.control}/upstream-jobs`),
    executions: () => getJson<ExecutionSummary[]>(`${ready.control}/executions`),
    /** Stops the child (SIGTERM, then SIGKILL) and closes the clients. */
    stop: async () => {
      client.destroy();
      await child.stop();
    },
    /** kill -9 of the whole process group; resolves once the child is gone. */
    crash: async () => {
      client.destroy();
      child.kill('SIGKILL');
      await child.exited;
    },
  };
}

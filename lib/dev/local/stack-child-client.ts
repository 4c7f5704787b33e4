/**
 * The parent's side of stack-child.ts: starts the local stack in a child process (for the bench and the tests
 * that kill it), and reaches its emulators directly (accounts, keys, task records) with the CLI's AdminStore.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { getItem } from '../../../functions/adapters/dynamodb/consistent-read.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import { AdminStore } from '../../ship/admin/admin-store.js';
import { forkLocalProcess } from './forked-process.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';
import type { LocalStackOptions } from './local-stack.js';
import type { ExecutionSummary, StackReady, UpstreamJobsSummary } from './stack-child.js';

export type StackProcess = Awaited<ReturnType<typeof startStackProcess>>;
/** A GET (or `init`) answered with JSON. */
export const getJson = async <T>(url: string, init?: RequestInit) => (await (await fetch(url, init)).json()) as T;

export async function startStackProcess(options: LocalStackOptions, timeoutMs = 300_000) {
  const [entry, config] = ['lib/dev/local/stack-child.ts', { port: 0, ...options }];
  const child = await forkLocalProcess<StackReady>({ name: 'the stack', entry, config, timeoutMs, group: true });
  const { ready } = child;
  const { endpoints, names } = ready;
  const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const client = new DynamoDBClient({ ...aws, endpoint: endpoints.dynamodb });
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
      await child.stop(10_000);
    },
    /** kill -9 of the whole process group; resolves once the child is gone. */
    crash: async () => {
      client.destroy();
      child.kill('SIGKILL');
      await child.exited;
    },
  };
}

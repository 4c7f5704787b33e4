/**
 * The parent's side of lib/bench/stack-process.ts: start the local stack in a child process and reach
 * its emulators directly (accounts, keys, task records) with the very AdminStore the CLI uses.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStackOptions } from '../local/local-stack.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { AdminStore } from '../admin/admin-store.js';
import type { TableId } from '../../functions/adapters/resources.js';
import type { TaskRecord } from '../../functions/core/task.js';
import { spawnTsx } from './child.js';
import type { Child } from './child.js';
import type { ExecutionSummary, StackReady, UpstreamJobsSummary } from './stack-process.js';

export interface StackProcess {
  child: Child;
  ready: StackReady;
  db: DynamoDBDocumentClient;
  admin: AdminStore;
  /** Every task record (consistent scan), optionally of one account. */
  tasks(accountId?: string): Promise<TaskRecord[]>;
  upstreamJobs(): Promise<UpstreamJobsSummary>;
  executions(): Promise<ExecutionSummary[]>;
  /** Stops the child (SIGTERM, then SIGKILL) and closes the clients. */
  stop(): Promise<void>;
  /** kill -9 of the whole process group; resolves once the child is gone. */
  crash(): Promise<void>;
}

export async function startStackProcess(options: LocalStackOptions, timeoutMs = 300_000): Promise<StackProcess> {
  const child = spawnTsx('lib/bench/stack-process.ts', {
    env: { BENCH_STACK_OPTIONS: JSON.stringify({ port: 0, ...options }) },
  });
  let ready: StackReady;
  try {
    ready = await child.waitFor<StackReady>('ready', timeoutMs);
  } catch (error) {
    await child.stop(1_000);
    throw error;
  }
  const client = new DynamoDBClient({
    endpoint: ready.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const admin = new AdminStore(db, ready.names.tables as Record<TableId, string>);
  return {
    child,
    ready,
    db,
    admin,
    tasks: async (accountId) => {
      const items: TaskRecord[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new ScanCommand({
            TableName: ready.names.tables['tasks'],
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
            ...(accountId
              ? { FilterExpression: 'account_id = :account', ExpressionAttributeValues: { ':account': accountId } }
              : {}),
          }),
        );
        items.push(...((page.Items ?? []) as TaskRecord[]));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return items;
    },
    upstreamJobs: async () => (await (await fetch(`${ready.control}/upstream-jobs`)).json()) as UpstreamJobsSummary,
    executions: async () => (await (await fetch(`${ready.control}/executions`)).json()) as ExecutionSummary[],
    stop: async () => {
      client.destroy();
      await child.stop();
    },
    crash: async () => {
      client.destroy();
      child.kill('SIGKILL');
      await child.exited;
    },
  };
}

/**
 * Child entry: the baseline of the API overhead bench. A bare node:http server that does only the
 * storage call each endpoint cannot do without, against the same DynamoDB Local, with the same SDK
 * client the handlers use:
 *
 *   GET  /api/v1/video/tasks/{id}  one GetItem (consistent, as the handler reads it)
 *   POST /api/v1/video/generate    one TransactWriteItems (debit, key spend, new task: the submit's own)
 *
 * No authentication, rate limit, validation, pricing, workflow start or middleware: the caller names its
 * account and key hash in x-bench-account / x-bench-key-hash. Config: BASELINE_CONFIG (JSON).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { sendToParent } from './child.js';

export interface BaselineConfig {
  dynamodb: string;
  tables: { tasks: string; accounts: string; apiKeys: string; rateLimits: string };
}

const config = JSON.parse(process.env['BASELINE_CONFIG'] ?? '{}') as BaselineConfig;
const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({ endpoint: config.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
  { marshallOptions: { removeUndefinedValues: true } },
);
const TASK_PATH = /^\/api\/v1\/video\/tasks\/([^/]+)$/;
const COST_UNITS = 30_000;

function reply(res: ServerResponse, status: number, data: unknown, message = 'success') {
  const body = JSON.stringify({ code: status === 200 ? 0 : status, message, data });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function getTask(res: ServerResponse, taskId: string) {
  const Item = await readTask(taskId);
  if (!Item) return reply(res, 404, null, 'no such task');
  reply(res, 200, {
    task_id: Item['task_id'],
    status: Item['status'],
    video_url: Item['video_url'] ?? null,
    cost: (Item['cost_units'] as number) / 10_000,
    created_at: Item['created_at'],
    finished_at: Item['finished_at'] ?? null,
  });
}

async function submit(req: IncomingMessage, res: ServerResponse) {
  const body = JSON.parse(await readBody(req)) as { model: string; prompt: string; duration: number };
  const accountId = String(req.headers['x-bench-account']);
  const keyHash = String(req.headers['x-bench-key-hash']);
  const now = new Date().toISOString();
  const task = {
    task_id: randomUUID(),
    account_id: accountId,
    key_hash: keyHash,
    key_quota_charged: false,
    form: 'A',
    // The same item a submit writes, but a status the tasks stream's starter passes over (TASK_STARTS): the
    // baseline pays for the write and its stream record, and starts no execution in the stack beside it.
    status: 'baseline',
    cost_units: COST_UNITS,
    generation: { modelName: body.model, prompt: body.prompt, durationSeconds: body.duration, resolution: '720p' },
    upstream_provider: 'ark',
    upstream_model: 'doubao-seedance-1-0-lite-i2v-250428',
    created_at: now,
    updated_at: now,
    deadline_at: now,
  };
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: config.tables.accounts,
            Key: { account_id: accountId },
            UpdateExpression: 'SET balance_units = balance_units - :cost',
            ConditionExpression: 'attribute_exists(account_id) AND balance_units >= :cost',
            ExpressionAttributeValues: { ':cost': COST_UNITS },
          },
        },
        {
          Update: {
            TableName: config.tables.apiKeys,
            Key: { key_hash: keyHash },
            UpdateExpression: 'ADD spent_units :cost',
            ConditionExpression: '#status = :active AND attribute_not_exists(quota_remaining_units)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':cost': COST_UNITS, ':active': 'active' },
          },
        },
        { Put: { TableName: config.tables.tasks, Item: task, ConditionExpression: 'attribute_not_exists(task_id)' } },
      ],
    }),
  );
  reply(res, 200, { task_id: task.task_id, status: 'pending', cost: COST_UNITS / 10_000, created_at: now });
}

async function readTask(taskId: string) {
  const { Item } = await db.send(
    new GetCommand({ TableName: config.tables.tasks, Key: { task_id: taskId }, ConsistentRead: true }),
  );
  return Item;
}

const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const task = TASK_PATH.exec(path);
  const work =
    req.method === 'GET' && task?.[1]
      ? getTask(res, task[1])
      : req.method === 'POST' && path === '/api/v1/video/generate'
        ? submit(req, res)
        : Promise.resolve(reply(res, 404, null, 'no such endpoint'));
  work.catch((error: unknown) => reply(res, 500, null, String(error)));
});
server.listen(0, '127.0.0.1', () => {
  sendToParent({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

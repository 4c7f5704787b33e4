/**
 * The FailAndRefund bundle, built as CDK deploys it, gives each failure its own reason: minified, a class's
 * name is `_a`, and a reason looked up by class name became "internal error". Run in a fresh Node 22 with
 * source maps against DynamoDB Local; loaded as the local stack loads it, its stack traces name our sources.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../functions/core/api-key.js';
import { DynamoDbTaskRepository } from '../../functions/adapters/dynamodb/task-repository.js';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { storedBalance } from '../support/stored-money.js';
import { CHILD_EXEC_ARGV } from '../../lib/dev/local/forked-process.js';
import { everyProviderAt, localHandlerEnvironment } from '../../lib/ship/sam-local/handler-environment.js';
import { lambdaBundles } from '../../lib/ship/build/lambda-bundles.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { useDynamoDbLocal } from '../support/dynamodb-local.js';
import { taskRecordFor } from '../support/task-records.js';

const run = promisify(execFile);
const NODE_22 = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'node');
const ENTRY = 'functions/workflow/fail-and-refund.ts';
const local = useDynamoDbLocal('fail-bundle');
let bundle = '';

beforeAll(async () => {
  bundle = (await lambdaBundles()).files[ENTRY] as string;
}, 300_000);

/** The handler's environment as the local stack gives it; nothing but DynamoDB is reached. */
function environment(): Record<string, string> {
  const unused = 'http://127.0.0.1:9';
  return {
    ...localHandlerEnvironment(local.names, {
      dynamodb: local.dynamo.endpoint,
      s3AndSqs: unused,
      sfn: unused,
      upstreams: everyProviderAt(unused, 'unused'),
      stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:unused',
      webhookQueueUrl: `${unused}/000000000000/unused`,
    }),
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    PATH: process.env['PATH'] ?? '',
  };
}

/**
 * Loads the bundle in a new Node (with `execArgv`, by `load`: an expression of `bundle`, its path) and
 * invokes its handler with `event`: what it returned, or what it threw.
 */
async function invoke(event: unknown, execArgv: string[], load = '(await import(bundle)).handler') {
  const script =
    'const bundle = process.argv[1];' +
    `const handler = await ${load};` +
    "const context = { functionName: 'FailAndRefund', awsRequestId: 'test', getRemainingTimeInMillis: () => 60000 };" +
    'const answer = await handler(JSON.parse(process.argv[2]), context).then(' +
    '  (result) => ({ result }),' +
    '  (error) => ({ error: { name: error.name, message: error.message, stack: error.stack } }));' +
    "console.log('ANSWER ' + JSON.stringify(answer));";
  const { stdout } = await run(
    NODE_22,
    [...execArgv, '--input-type=module', '-e', script, bundle, JSON.stringify(event)],
    {
      cwd: REPOSITORY_ROOT,
      env: environment(),
      timeout: 170_000,
    },
  );
  const line = stdout.split('\n').find((candidate) => candidate.startsWith('ANSWER '));
  if (!line) throw new Error(`no answer from the handler:\n${stdout}`);
  return JSON.parse(line.slice('ANSWER '.length)) as {
    result?: unknown;
    error?: { name: string; message: string; stack: string };
  };
}

/** A running task of a new account (10 CNY), charged 4.2 CNY as a submit charges it. */
async function runningTask() {
  const admin = new AdminStore(local.db, local.names.tables);
  const accountId = `acct-${randomUUID().slice(0, 8)}`;
  await admin.createAccount(accountId, '10');
  const { key } = await admin.createKey({ accountId });
  const task = taskRecordFor({ accountId, keyHash: hashApiKey(key) }, { status: 'running', cost_units: 42_000 });
  await new DynamoDbTaskRepository(local.db, local.names.tables).createCharged(task, {
    accountId,
    keyHash: task.key_hash,
    keyHasQuota: false,
    costUnits: task.cost_units,
  });
  return { accountId, taskId: task.task_id };
}

async function read(table: string, key: Record<string, string>) {
  const { Item } = await local.db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  return Item as Record<string, unknown>;
}

/** Lambda's Cause for an error a step threw: its JSON, with the message the customer may read. */
const lambdaCause = (name: string, message: string) =>
  JSON.stringify({
    errorType: name,
    errorMessage: message,
    trace: [`${name}: ${message}`, '    at /var/task/index.mjs'],
  });

describe('the FailAndRefund bundle', () => {
  it.each([
    ['UpstreamJobFailedError', 'content policy violation', 'generation failed: content policy violation'],
    ['UpstreamRejectedError', 'prompt too long', 'the generator rejected the task: prompt too long'],
    ['UpstreamJobNotFoundError', 'Ark does not know task cgt-42', 'the generator lost the task'],
    ['GenerationTimedOutError', 'past 3600 s', 'generation timed out: past 3600 s'],
    ['VideoRejectedError', 'not a video', 'the generated file could not be stored: not a video'],
    ['TypeError', 'x is undefined at 10.0.0.12', 'internal error while processing the task'],
  ])('%s: refunds, with "%s" as the reason', async (name, message, expected) => {
    const { accountId, taskId } = await runningTask();
    const event = { task_id: taskId, error: { Error: name, Cause: lambdaCause(name, message) } };
    const answer = await invoke(event, ['--enable-source-maps']);
    expect(answer).toMatchObject({ result: { status: 'failed', refunded: true } });
    expect(await read(local.names.tables.tasks, { task_id: taskId })).toMatchObject({
      status: 'failed',
      error_message: expected,
    });
    // The balance is the sum of the account's shards (docs/money-and-ledger.md, "Balance shards").
    expect(await storedBalance(local.db, local.names.tables.accounts, accountId)).toBe(100_000);
  });

  it('loaded as the local stack loads it (under tsx), throws with stack traces in our TypeScript', async () => {
    const loader = JSON.stringify(
      pathToFileURL(join(REPOSITORY_ROOT, 'lib', 'dev', 'local', 'handler-loader.ts')).href,
    );
    const entry = JSON.stringify(ENTRY);
    const load = `(await import(${loader})).loadBundledHandler({ [${entry}]: bundle }, ${entry})`;
    const answer = await invoke({ task_id: 'not-a-uuid' }, CHILD_EXEC_ARGV, load);
    expect(answer.error?.name).toBe('InvalidStepInputError');
    // Source-mapped: the frame is the step handler's source, not a column of the minified index.mjs.
    const topFrame = answer.error?.stack.split('\n').find((line) => line.trimStart().startsWith('at '));
    expect(topFrame).toContain(join(REPOSITORY_ROOT, 'functions/workflow/step-handler.ts'));
  });
});

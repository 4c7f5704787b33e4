/**
 * The synthesized templates have the properties docs/operations.md and the other docs pages describe. One synthesis (without bundling:
 * lambda-bundles.test.ts builds the real bundles) serves every test here.
 */
import { ARK_EXPIRY_SECONDS } from '../../functions/providers/ark/contract.js';
import { UPSTREAM_EXPIRY_GRACE_MS } from '../../functions/core/use-cases/upstream-completion.js';
import { ENV } from '../../functions/adapters/runtime/config.js';
import { PROVIDER_NAMES } from '../../functions/providers/registry.js';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aslTokens, readAslDefinition } from '../../lib/ship/cdk/task-workflow.js';
import { FFMPEG_BUILD } from '../../lib/ship/build/ffmpeg-binary.js';
import { pages, WEBHOOK_IN_FLIGHT_ALARM_MESSAGES } from '../../lib/ship/cdk/alarms.js';
import {
  physicalNames,
  TABLES,
  TASK_STARTS,
  TASKS_BY_ACCOUNT_INDEX,
  TASKS_IN_FLIGHT_INDEX,
  TASKS_SLOT_HOLDERS_INDEX,
  TASKS_WEBHOOK_PENDING_INDEX,
  UPLOAD_TRANSCODER,
  WEBHOOK_QUEUE,
} from '../../functions/adapters/runtime/resources.js';
import type { TableId } from '../../functions/adapters/runtime/resources.js';
import { functionById } from '../../functions/catalog.js';
import {
  ALL_FUNCTIONS,
  API_ROUTES,
  ASL_RESOURCE_TOKENS,
  DEFAULT_ROUTE,
  SCHEDULED_FUNCTIONS,
  WORKFLOW_FUNCTIONS,
} from '../../lib/ship/routes.js';
import type { CfnResource, SynthesizedService } from './synth.js';
import {
  cdkJson,
  crossStackResource,
  functionBehindAlias,
  resourcesOfType,
  resourceWith,
  synthesizeService,
  VALIDATE_ON_SYNTH,
} from './synth.js';

let service: SynthesizedService;
beforeAll(() => {
  // The one synthesis that also runs CDK's CloudFormation rule validation, as a real `cdk synth` does.
  service = synthesizeService({ validate: true });
}, 300_000);
afterAll(() => service?.cleanup());

const ALL_FUNCTION_IDS = ALL_FUNCTIONS.map((f) => f.id);

it("fails a real synthesis on the built-in CloudFormation validation's findings (cdk.json), as this file's", () => {
  expect(cdkJson().context[VALIDATE_ON_SYNTH]).toBe(true);
});

function fn(id: string): [string, CfnResource] {
  return resourceWith(service.statelessJson, 'AWS::Lambda::Function', 'FunctionName', `${service.prefix}-${id}`);
}
function envOf(id: string): Record<string, unknown> {
  return (fn(id)[1].Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
}
/** Every statement of the policies attached to a role (by the role's logical id). */
function statementsOf(
  roleLogicalId: string,
): { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown }[] {
  return resourcesOfType(service.statelessJson, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleLogicalId),
    )
    .flatMap(([, policy]) => (policy.Properties['PolicyDocument'] as { Statement: never[] }).Statement);
}
function roleOf(id: string): string {
  return (fn(id)[1].Properties['Role'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}
function actionsOf(id: string): string[] {
  return statementsOf(roleOf(id)).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}
/** The DynamoDB actions a function may take on each table itself (by table id; index grants left out). */
function dynamoByTable(id: string): Partial<Record<TableId, string[]>> {
  const byTable: Partial<Record<TableId, string[]>> = {};
  const tableIds = new Map(
    Object.entries(physicalNames(service.prefix).tables).map(([tableId, name]) => [name, tableId as TableId]),
  );
  for (const statement of statementsOf(roleOf(id))) {
    const actions = ([] as string[]).concat(statement.Action).filter((action) => action.startsWith('dynamodb:'));
    if (actions.length === 0) continue;
    for (const resource of ([] as unknown[]).concat(statement.Resource)) {
      if (JSON.stringify(resource).includes('/index/')) continue;
      const [, table] = crossStackResource(service, resource);
      const tableId = tableIds.get(table.Properties['TableName'] as string);
      if (!tableId) throw new Error(`${id}: DynamoDB actions on ${JSON.stringify(resource)}`);
      byTable[tableId] = [...new Set([...(byTable[tableId] ?? []), ...actions])].sort();
    }
  }
  return byTable;
}

describe('stacks', () => {
  it('are the stateful and the stateless stack, named from the prefix', () => {
    expect(service.stacks.stateful.stackName).toBe('vgs-stateful');
    expect(service.stacks.stateless.stackName).toBe('vgs-stateless');
    expect(service.stacks.stateful.terminationProtection).toBe(true);
    expect(service.stacks.stateless.dependencies).toContain(service.stacks.stateful);
  });

  it('keep data in the stateful stack and compute in the stateless one', () => {
    const statefulTypes = new Set(Object.values(service.statefulJson.Resources).map((r) => r.Type));
    const statelessTypes = new Set(Object.values(service.statelessJson.Resources).map((r) => r.Type));
    for (const type of ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SQS::Queue', 'AWS::SecretsManager::Secret']) {
      expect(statefulTypes).toContain(type);
      expect(statelessTypes).not.toContain(type);
    }
    for (const type of ['AWS::Lambda::Function', 'AWS::ApiGatewayV2::Api', 'AWS::StepFunctions::StateMachine']) {
      expect(statelessTypes).toContain(type);
      expect(statefulTypes).not.toContain(type);
    }
  });
});

describe('functions', () => {
  it('are one per route, default route, workflow step, webhook consumer, task starter and schedule: Node.js 24, arm64, traced', () => {
    const functions = resourcesOfType(service.statelessJson, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(ALL_FUNCTION_IDS.length);
    for (const id of ALL_FUNCTION_IDS) {
      const [, resource] = fn(id);
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        // TranscodeUpload runs ffmpeg's x86_64 build (its own test below).
        Architectures: [id === UPLOAD_TRANSCODER.id ? 'x86_64' : 'arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
      expect(resource.Properties['Environment']).toMatchObject({
        Variables: { NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: 'video-generation' },
      });
    }
  });

  it('log to their own log group with a retention', () => {
    for (const id of ALL_FUNCTION_IDS) {
      const logGroup = (fn(id)[1].Properties['LoggingConfig'] as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const group = service.statelessJson.Resources[logGroup];
      expect(group?.Type).toBe('AWS::Logs::LogGroup');
      expect(group?.Properties['RetentionInDays']).toBe(30);
    }
  });

  it('are given table names that resolve to the physical names of functions/adapters/runtime/resources.ts', () => {
    const names = physicalNames(service.prefix);
    for (const id of ALL_FUNCTION_IDS) {
      for (const [tableId, definition] of Object.entries(TABLES) as [TableId, (typeof TABLES)[TableId]][]) {
        const value = envOf(id)[definition.envVar];
        if (value === undefined) continue;
        const [, table] = crossStackResource(service, value);
        expect(table.Properties['TableName']).toBe(names.tables[tableId]);
      }
    }
  });

  it('never get a secret value in their environment, only secret ARNs', () => {
    for (const id of ALL_FUNCTION_IDS) {
      const env = envOf(id);
      expect(env).not.toHaveProperty('ARK_API_KEY');
      expect(env).not.toHaveProperty('S3_FORCE_PATH_STYLE');
      for (const [name, value] of Object.entries(env)) {
        if (!name.endsWith('_SECRET_ARN')) continue;
        expect(crossStackResource(service, value)[1].Type).toBe('AWS::SecretsManager::Secret');
      }
    }
  });

  it('that authenticate get the rate limit default', () => {
    // The upstream's callback route takes no API key (a per-task secret in its path guards it): no limiter; nor
    // do the health route and the API's description (docs/api-contract.md, "Routes").
    const unauthenticated = ['UpstreamCallback', 'AlipayNotify', 'Health', 'GetOpenApi', 'GetDocs'];
    // The console's routes take a Cognito token, not a key: no limiter either (CreateKey states the default).
    const consoleRoutes = API_ROUTES.filter((route) => route.auth === 'jwt').map((route) => route.id);
    for (const id of API_ROUTES.map((route) => route.id)) {
      if (unauthenticated.includes(id) || consoleRoutes.includes(id)) continue;
      expect(envOf(id), id).toMatchObject({ DEFAULT_RATE_LIMIT_PER_SECOND: '10' });
      expect(envOf(id), id).toHaveProperty(TABLES.rateLimits.envVar);
    }
    for (const id of consoleRoutes) expect(envOf(id), id).not.toHaveProperty(TABLES.rateLimits.envVar);
    for (const id of [...unauthenticated, DEFAULT_ROUTE.id]) {
      expect(envOf(id), id).not.toHaveProperty('DEFAULT_RATE_LIMIT_PER_SECOND');
      expect(envOf(id), id).not.toHaveProperty(TABLES.rateLimits.envVar);
    }
    expect(API_ROUTES.map((route) => route.id)).toEqual(expect.arrayContaining(unauthenticated));
  });

  it('that call the upstream get its URL and the Ark key secret, and may read it; no other function does', () => {
    const callers = [
      'StartUpstream',
      'AwaitCompletion',
      'FailAndRefund',
      'GetTask',
      'ConsoleGetTask',
      'CancelTask',
      'UpstreamCallback',
      // OpenAI's retrieve is our GetTask; its delete of a queued video is our cancel (docs/openai-videos.md).
      'OpenAiGetVideo',
      'OpenAiDeleteVideo',
    ];
    for (const id of callers) {
      expect(envOf(id), id).toMatchObject({ ARK_BASE_URL: expect.stringMatching(/^https:\/\//) });
      expect(envOf(id), id).toHaveProperty('ARK_API_KEY_SECRET_ARN');
      expect(actionsOf(id), id).toContain('secretsmanager:GetSecretValue');
    }
    for (const id of ALL_FUNCTION_IDS.filter((id) => !callers.includes(id))) {
      expect(envOf(id), id).not.toHaveProperty('ARK_API_KEY_SECRET_ARN');
      expect(envOf(id), id).not.toHaveProperty('ARK_BASE_URL');
    }
  });

  it('StartUpstream gives the upstream a callback URL on the HTTP API, and the completion wait its fallback polls', () => {
    const [apiId] = resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::Api')[0] as [string, CfnResource];
    // The API's custom name when the stage has domains (test/infra/edge.test.ts), else its execute-api endpoint.
    const domains = service.stacks.edge?.domains;
    expect(envOf('StartUpstream')[ENV.callbackBaseUrl.name]).toEqual(
      domains ? `https://${domains.api}` : { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] },
    );
    // The timeouts of AwaitCompletion's tries (StartUpstream returns the one that applies as `check_seconds`).
    expect(envOf('StartUpstream')).toMatchObject({
      [ENV.completionCheckSeconds.name]: ENV.completionCheckSeconds.default,
      [ENV.completionPollSeconds.name]: ENV.completionPollSeconds.default,
    });
    // Only StartUpstream puts the URL in a create; the top-up functions name our Alipay notify route with it.
    const topups = ['CreateTopup', 'GetTopup', 'AlipayNotify', 'SweepTopups'];
    const namesNotifyRoute = (id: string) => topups.includes(id) || topups.includes(id.replace(/^Console/, ''));
    for (const id of ALL_FUNCTION_IDS.filter((id) => id !== 'StartUpstream' && !namesNotifyRoute(id))) {
      expect(envOf(id), id).not.toHaveProperty(ENV.callbackBaseUrl.name);
    }
  });

  it('that wake waiting executions may answer task tokens, of the lifecycle state machine only; no other function may', () => {
    const wakers = [
      'WaitForUpstreamSlot',
      'StartUpstream',
      'AwaitCompletion',
      'FailAndRefund',
      'GetTask',
      'ConsoleGetTask',
      'CancelTask',
      'UpstreamCallback',
      'ReconcileTasks',
      'OpenAiGetVideo',
      'OpenAiDeleteVideo',
    ];
    for (const id of ALL_FUNCTION_IDS) {
      const answers = wakers.includes(id);
      expect(actionsOf(id).includes('states:SendTaskSuccess'), id).toBe(answers);
      expect(actionsOf(id).includes('states:SendTaskFailure'), id).toBe(answers);
      expect(actionsOf(id).includes('states:SendTaskHeartbeat'), id).toBe(false);
      if (!answers) continue;
      const grants = statementsOf(roleOf(id)).filter((s) =>
        ([] as string[]).concat(s.Action).some((action) => action.startsWith('states:SendTask')),
      );
      // By its name (known before the machine, which is made after the functions), never `*`.
      for (const grant of grants) {
        const resource = JSON.stringify(grant.Resource);
        expect(resource, id).toContain(':stateMachine:');
        expect(resource, id).toContain(JSON.stringify(deployedName()));
        expect(resource, id).not.toContain('*');
      }
      expect(grants.length, id).toBeGreaterThan(0);
    }
    // Each waker also finds the tokens: the accounts and the waiting room's tables.
    for (const id of wakers) {
      expect(envOf(id), id).toHaveProperty(TABLES.upstreamAccounts.envVar);
      expect(envOf(id), id).toHaveProperty(TABLES.upstreamQueue.envVar);
    }
  });

  it('that sign video URLs (GetTask, ListTasks, CompleteTask, DeliverWebhook) get the CloudFront domain, key pair id and key', () => {
    const signers = [
      'GetTask',
      'ListTasks',
      'ConsoleGetTask',
      'ConsoleListTasks',
      'CompleteTask',
      'DeliverWebhook',
      'PrepareInputs',
      'OpenAiGetVideo',
      'OpenAiGetVideoContent',
      // A redelivery sends the event again with a fresh video URL (docs/webhooks.md, "Delivery log").
      'RedeliverWebhook',
      'ConsoleRedeliverWebhook',
    ];
    for (const id of ALL_FUNCTION_IDS) {
      const signs = signers.includes(id);
      for (const name of ['CLOUDFRONT_DOMAIN', 'CLOUDFRONT_KEY_PAIR_ID', 'CLOUDFRONT_PRIVATE_KEY_SECRET_ARN']) {
        expect(name in envOf(id), `${id} ${name}`).toBe(signs);
      }
    }
    // The videos' stable address: the stage's own domain, served by that distribution (docs/operations.md).
    expect(envOf('GetTask')['CLOUDFRONT_DOMAIN']).toMatch(/^videos\.[a-z0-9.-]+$/);
    expect(crossStackResource(service, envOf('GetTask')['CLOUDFRONT_KEY_PAIR_ID'])[1].Type).toBe(
      'AWS::CloudFront::PublicKey',
    );
    for (const id of signers) expect(actionsOf(id)).toContain('secretsmanager:GetSecretValue');
  });

  it('touch the video bucket only where they must: videos/ for TransferVideo, uploads/ for the upload steps', () => {
    const expected: Record<string, string[]> = {
      TransferVideo: ['s3:AbortMultipartUpload', 's3:PutObject'],
      // Presigns the customer's PUT with its own role; the submit reads what arrived; PrepareInputs reads and
      // writes the typed copy; TranscodeUpload reads and writes the H.264 copy. ListBucket (on uploads/ only)
      // makes a missing upload a 404, not a 403.
      CreateUpload: ['s3:ListBucket', 's3:PutObject'],
      SubmitTask: ['s3:GetObject', 's3:ListBucket'],
      PrepareInputs: ['s3:GetObject', 's3:ListBucket', 's3:PutObject'],
      [UPLOAD_TRANSCODER.id]: ['s3:GetObject', 's3:ListBucket', 's3:PutObject'],
      // OpenAI's create stores an uploaded input_reference as our uploads are; its delete removes a finished video.
      OpenAiCreateVideo: ['s3:GetObject', 's3:ListBucket', 's3:PutObject'],
      OpenAiDeleteVideo: ['s3:DeleteObject'],
    };
    for (const id of ALL_FUNCTION_IDS) {
      const s3 = actionsOf(id).filter((a) => a.startsWith('s3:'));
      expect(s3.sort(), id).toEqual(expected[id] ?? []);
    }
    const write = statementsOf(roleOf('TransferVideo')).find((s) => s.Action.includes('s3:PutObject'));
    expect(JSON.stringify(write?.Resource)).toMatch(/:s3:::vgs-videos-".*"\/videos\/\*"/);
    for (const id of ['CreateUpload', 'SubmitTask', 'PrepareInputs']) {
      for (const statement of statementsOf(roleOf(id)).filter((s) =>
        ([] as string[]).concat(s.Action).some((action) => action.startsWith('s3:')),
      )) {
        if (([] as string[]).concat(statement.Action).includes('s3:ListBucket')) {
          expect(statement.Condition, id).toEqual({ StringLike: { 's3:prefix': ['uploads/*'] } });
        } else {
          expect(JSON.stringify(statement.Resource), id).toMatch(/:s3:::vgs-videos-".*"\/uploads\/\*"/);
        }
      }
    }
  });

  it('TranscodeUpload runs the ffmpeg of @ffmpeg-installer/linux-x64 from a layer, on x86_64 as the binary', () => {
    const [, transcoder] = fn(UPLOAD_TRANSCODER.id);
    expect(transcoder.Properties['Architectures']).toEqual(['x86_64']);
    expect(transcoder.Properties['Layers']).toHaveLength(1);
    expect(envOf(UPLOAD_TRANSCODER.id)[ENV.ffmpegPath.name]).toBe('/opt/ffmpeg');
    const layers = resourcesOfType(service.statelessJson, 'AWS::Lambda::LayerVersion');
    expect(layers).toHaveLength(1);
    expect(layers[0]?.[1].Properties).toMatchObject({ CompatibleArchitectures: ['x86_64'] });
    expect(String(layers[0]?.[1].Properties['Description'])).toContain(FFMPEG_BUILD);
    // Every other function stays on arm64, without the layer.
    for (const id of ALL_FUNCTION_IDS.filter((id) => id !== UPLOAD_TRANSCODER.id)) {
      expect(fn(id)[1].Properties['Architectures'], id).toEqual(['arm64']);
      expect(fn(id)[1].Properties, id).not.toHaveProperty('Layers');
    }
  });

  it('TranscodeUpload, which decodes untrusted media, may read uploads and write their H.264 copies, nothing else', () => {
    const [, transcoder] = fn(UPLOAD_TRANSCODER.id);
    expect(transcoder.Properties).toMatchObject({
      Timeout: UPLOAD_TRANSCODER.timeoutSeconds,
      MemorySize: functionById(UPLOAD_TRANSCODER.id).memoryMb,
    });
    // Its environment: where the bucket is, where ffmpeg is, and the settings every function has. No table,
    // no secret, no queue, no state machine.
    expect(Object.keys(envOf(UPLOAD_TRANSCODER.id)).sort()).toEqual(
      [
        'NODE_OPTIONS',
        'POWERTOOLS_LOG_LEVEL',
        'POWERTOOLS_SERVICE_NAME',
        ENV.ffmpegPath.name,
        ENV.videoBucket.name,
      ].sort(),
    );
    // Its role: S3 on uploads/ only (reads of any upload, writes of *.h264.mp4 only), X-Ray, and nothing else.
    const statements = statementsOf(roleOf(UPLOAD_TRANSCODER.id));
    const actions = statements.flatMap((s) => ([] as string[]).concat(s.Action)).sort();
    expect(actions).toEqual(
      ['s3:GetObject', 's3:ListBucket', 's3:PutObject', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments'].sort(),
    );
    const resourceOf = (action: string) =>
      JSON.stringify(statements.find((s) => ([] as string[]).concat(s.Action).includes(action))?.Resource);
    expect(resourceOf('s3:GetObject')).toMatch(/\/uploads\/\*"\]/);
    expect(resourceOf('s3:PutObject')).toMatch(/\/uploads\/\*\.h264\.mp4"\]/);
    // The role's only managed policy is Lambda's basic execution role (its own logs).
    const role = service.statelessJson.Resources[roleOf(UPLOAD_TRANSCODER.id)];
    const managed = JSON.stringify(role?.Properties['ManagedPolicyArns']);
    expect(managed.match(/:iam::aws:policy\/[\w/-]+/g)).toEqual([
      ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
    ]);
    // PrepareInputs no longer decodes: it invokes the transcoder by name and may invoke nothing else.
    expect(envOf('PrepareInputs')).not.toHaveProperty(ENV.ffmpegPath.name);
    expect(envOf('PrepareInputs')[ENV.transcoderFunction.name]).toBe(`${service.prefix}-${UPLOAD_TRANSCODER.id}`);
    const invoke = statementsOf(roleOf('PrepareInputs')).filter((s) =>
      ([] as string[]).concat(s.Action).includes('lambda:InvokeFunction'),
    );
    expect(JSON.stringify(invoke.map((s) => s.Resource))).toMatch(
      new RegExp(`:function:${service.prefix}-${UPLOAD_TRANSCODER.id}"\\]`),
    );
    for (const id of ALL_FUNCTION_IDS.filter((id) => id !== 'PrepareInputs')) {
      expect(actionsOf(id), id).not.toContain('lambda:InvokeFunction');
    }
  });

  it('get exactly the DynamoDB actions their handlers use, no table-wide wildcards', () => {
    const dynamo = (id: string) => actionsOf(id).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo('NotFound')).toEqual([]);
    expect(dynamo('TransferVideo')).toEqual([]);
    // The waiting room: the task (read; its slot taken in a transaction with the account's count), the
    // accounts (scanned, counted), the room itself (entered, left, read in order).
    expect(dynamoByTable('WaitForUpstreamSlot')).toEqual({
      tasks: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      upstreamAccounts: ['dynamodb:Scan', 'dynamodb:UpdateItem'],
      upstreamQueue: ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:Query'],
    });
    // The completion wait: as the waiting room (a job's end gives its slot back and dispatches), plus a failed
    // job's refund (the account's balance and the key's spend, in one transaction with the task).
    expect(dynamoByTable('AwaitCompletion')).toEqual({
      tasks: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      accounts: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      apiKeys: ['dynamodb:UpdateItem'],
      // The refund's ledger entry (docs/money-and-ledger.md, "Ledger"), in the same transaction.
      ledger: ['dynamodb:PutItem'],
      upstreamAccounts: ['dynamodb:Scan', 'dynamodb:UpdateItem'],
      upstreamQueue: ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:Query'],
    });
    // The task list: the account index (its Query only), and a re-signed video URL stored as GetTask stores it.
    const listGrants = statementsOf(roleOf('ListTasks')).filter((st) =>
      ([] as string[]).concat(st.Action).includes('dynamodb:Query'),
    );
    expect(listGrants.map((st) => JSON.stringify(st.Resource))).toEqual([
      expect.stringMatching(new RegExp(`/index/${TASKS_BY_ACCOUNT_INDEX.name}"`)),
    ]);
    expect(dynamoByTable('ListTasks')).toMatchObject({ tasks: ['dynamodb:UpdateItem'] });
    for (const id of ['Health', 'GetOpenApi', 'GetDocs']) expect(dynamo(id), id).toEqual([]);
    expect(dynamo('ListModels').sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
    ]);
    for (const id of ALL_FUNCTION_IDS) {
      expect(
        actionsOf(id).filter((a) => a.includes('*')),
        id,
      ).toEqual([]);
    }
  });

  it('may BatchGetItem wherever they may GetItem (the item reader coalesces reads into one BatchGetItem)', () => {
    for (const id of ALL_FUNCTION_IDS) {
      const statements = statementsOf(roleOf(id));
      for (const statement of statements.filter((s) =>
        ([] as string[]).concat(s.Action).includes('dynamodb:GetItem'),
      )) {
        expect(([] as string[]).concat(statement.Action), id).toContain('dynamodb:BatchGetItem');
      }
    }
    expect(actionsOf('GetTask')).toContain('dynamodb:BatchGetItem');
    expect(actionsOf(WEBHOOK_QUEUE.consumer.id)).toContain('dynamodb:BatchGetItem');
  });

  it('only the task starter and the reconciler may start executions, only CancelTask may stop them', () => {
    for (const id of ALL_FUNCTION_IDS) {
      expect(actionsOf(id).includes('states:StartExecution'), id).toBe(
        id === TASK_STARTS.starter.id || id === 'ReconcileTasks',
      );
      // OpenAI's delete of a queued video is our cancel.
      expect(actionsOf(id).includes('states:StopExecution'), id).toBe(
        id === 'CancelTask' || id === 'OpenAiDeleteVideo',
      );
      expect(actionsOf(id).includes('states:DescribeExecution'), id).toBe(id === 'ReconcileTasks');
    }
    // By its name, known before the machine (made after the functions it calls): the same expression.
    const arn = JSON.stringify(envOf(TASK_STARTS.starter.id)['STATE_MACHINE_ARN']);
    expect(arn).toContain(':stateMachine:');
    expect(arn).toContain(JSON.stringify(deployedName()));
    service.stateless.hasResourceProperties('AWS::StepFunctions::StateMachine', { StateMachineName: deployedName() });
  });

  it('the webhook consumer is fed by the webhook queue with batch item failures at bounded concurrency', () => {
    const [logicalId] = fn(WEBHOOK_QUEUE.consumer.id);
    service.stateless.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId },
      BatchSize: WEBHOOK_QUEUE.consumer.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: WEBHOOK_QUEUE.consumer.maxConcurrency },
    });
    // Lambda's allowed range, and well below the account's default 1,000.
    expect(WEBHOOK_QUEUE.consumer.maxConcurrency).toBeGreaterThanOrEqual(2);
    expect(WEBHOOK_QUEUE.consumer.maxConcurrency).toBeLessThanOrEqual(100);
    // Retries are new messages (to the queue), parked ones go to the DLQ.
    const names = physicalNames(service.prefix);
    const send = statementsOf(roleOf(WEBHOOK_QUEUE.consumer.id)).find((s) => s.Action === 'sqs:SendMessage');
    expect(
      ([] as unknown[])
        .concat(send?.Resource)
        .map((arn) => crossStackResource(service, arn)[1].Properties['QueueName'])
        .sort(),
    ).toEqual([names.webhookDeadLetterQueue, names.webhookQueue].sort());
    expect(envOf(WEBHOOK_QUEUE.consumer.id)).toHaveProperty(WEBHOOK_QUEUE.envVar);
    expect(fn(WEBHOOK_QUEUE.consumer.id)[1].Properties['Timeout']).toBe(WEBHOOK_QUEUE.consumer.timeoutSeconds);
  });

  it('the task starter is fed by the tasks stream, filtered to tasks created pending, with batch item failures', () => {
    const [logicalId] = fn(TASK_STARTS.starter.id);
    service.stateless.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: TASK_STARTS.batchSize,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: TASK_STARTS.retryAttempts,
      MaximumRecordAgeInSeconds: TASK_STARTS.maxRecordAgeSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(TASK_STARTS.filterPattern) }] },
    });
    // The stream's reads, the one start and the on-failure report: nothing on any table, nothing else.
    expect(
      actionsOf(TASK_STARTS.starter.id)
        .filter((action) => !action.startsWith('xray:'))
        .sort(),
    ).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
      'states:StartExecution',
    ]);
    const names = physicalNames(service.prefix);
    const [, tasks] = resourceWith(service.statefulJson, 'AWS::DynamoDB::Table', 'TableName', names.tables.tasks);
    expect(tasks.Properties['StreamSpecification']).toEqual({ StreamViewType: 'NEW_IMAGE' });
    // A batch given up on is reported to the task starts DLQ (encrypted, TLS only); the reconciler starts its tasks.
    const [dlqId, dlq] = resourceWith(
      service.statefulJson,
      'AWS::SQS::Queue',
      'QueueName',
      names.taskStartsDeadLetterQueue,
    );
    expect(dlq.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(hasTlsOnlyPolicy('AWS::SQS::QueuePolicy', 'Queues', dlqId)).toBe(true);
    const [, mapping] = resourcesOfType(service.statelessJson, 'AWS::Lambda::EventSourceMapping').find(
      ([, resource]) => JSON.stringify(resource.Properties['FunctionName']) === JSON.stringify({ Ref: logicalId }),
    )!;
    const destination = (mapping.Properties['DestinationConfig'] as { OnFailure: { Destination: unknown } }).OnFailure;
    expect(crossStackResource(service, destination.Destination)[1].Properties['QueueName']).toBe(
      names.taskStartsDeadLetterQueue,
    );
    // Submits only write: their execution starts from the stream.
    expect(actionsOf('SubmitTask').some((action) => action.startsWith('states:'))).toBe(false);
  });

  it('scheduled functions run from an EventBridge rule at their rate, and the reconciler may query by status', () => {
    for (const definition of SCHEDULED_FUNCTIONS) {
      const [logicalId] = fn(definition.id);
      service.stateless.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `rate(${definition.everyMinutes} minute${definition.everyMinutes === 1 ? '' : 's'})`,
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId, 'Arn'] } })],
      });
    }
    // By status (tasks in flight), and the slots that ended tasks still hold (slot-holders): on those indexes only.
    const queried = statementsOf(roleOf('ReconcileTasks'))
      .filter((s) => s.Action === 'dynamodb:Query')
      .flatMap((s) => ([] as unknown[]).concat(s.Resource).map((resource) => JSON.stringify(resource)));
    for (const index of [TASKS_IN_FLIGHT_INDEX.name, TASKS_SLOT_HOLDERS_INDEX.name]) {
      expect(
        queried.filter((resource) => resource.includes(`/index/${index}`)),
        index,
      ).toHaveLength(1);
    }
  });

  it('the webhook requeuer queries its index, claims on the table, and sends to the webhook queue', () => {
    const statements = statementsOf(roleOf('RequeueWebhooks'));
    const query = statements.find((s) => s.Action === 'dynamodb:Query');
    expect(JSON.stringify(query?.Resource)).toContain(`/index/${TASKS_WEBHOOK_PENDING_INDEX.name}`);
    expect(
      actionsOf('RequeueWebhooks')
        .filter((action) => action.startsWith('dynamodb:'))
        .sort(),
    ).toEqual(['dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(actionsOf('RequeueWebhooks')).toContain('sqs:SendMessage');
    expect(envOf('RequeueWebhooks')).toHaveProperty(WEBHOOK_QUEUE.envVar);
  });
});

describe('HTTP API', () => {
  it('is an HTTP API with one route per endpoint, each to its own function, and $default to NotFound', () => {
    service.stateless.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    service.stateless.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    const routes = resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::Route');
    const expected = [...API_ROUTES.map((r) => [`${r.method} ${r.path}`, r.id]), ['$default', DEFAULT_ROUTE.id]];
    expect(routes.map(([, r]) => r.Properties['RouteKey']).sort()).toEqual(expected.map(([key]) => key).sort());
    for (const [routeKey, id] of expected) {
      const [, route] = resourceWith(service.statelessJson, 'AWS::ApiGatewayV2::Route', 'RouteKey', routeKey);
      const integrationId = (route.Properties['Target'] as { 'Fn::Join': [string, [string, { Ref: string }]] })[
        'Fn::Join'
      ][1][1].Ref;
      const integration = service.statelessJson.Resources[integrationId] as CfnResource;
      expect(integration.Properties['IntegrationType']).toBe('AWS_PROXY');
      expect(integration.Properties['PayloadFormatVersion']).toBe('2.0');
      // Its `live` alias (live-rollouts.ts; test/infra/live-rollouts.test.ts).
      expect(functionBehindAlias(service, integration.Properties['IntegrationUri'])).toBe(fn(id as string)[0]);
    }
  });

  it('has access logs on and default throttling on its $default stage', () => {
    const [, stage] = resourceWith(service.statelessJson, 'AWS::ApiGatewayV2::Stage', 'StageName', '$default');
    expect(stage.Properties['AutoDeploy']).toBe(true);
    const settings = stage.Properties['AccessLogSettings'] as {
      DestinationArn: { 'Fn::GetAtt': [string] };
      Format: string;
    };
    const logGroup = service.statelessJson.Resources[settings.DestinationArn['Fn::GetAtt'][0]];
    expect(logGroup?.Type).toBe('AWS::Logs::LogGroup');
    expect(logGroup?.Properties['RetentionInDays']).toBe(90);
    expect(JSON.parse(settings.Format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    expect(settings.Format).not.toMatch(/authorization|header/i);
    expect(stage.Properties['DefaultRouteSettings']).toEqual({ ThrottlingRateLimit: 5000, ThrottlingBurstLimit: 5000 });
  });
});

describe('DynamoDB', () => {
  it('has every table of functions/adapters/runtime/resources.ts: on demand, PITR, encrypted, protected and retained', () => {
    const names = physicalNames(service.prefix);
    service.stateful.resourceCountIs('AWS::DynamoDB::Table', Object.keys(TABLES).length);
    for (const [tableId, definition] of Object.entries(TABLES) as [TableId, (typeof TABLES)[TableId]][]) {
      const [, table] = resourceWith(service.statefulJson, 'AWS::DynamoDB::Table', 'TableName', names.tables[tableId]);
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      });
      expect(table.Properties['KeySchema'], tableId).toEqual([
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        ...('sortKey' in definition ? [{ AttributeName: definition.sortKey, KeyType: 'RANGE' }] : []),
      ]);
      expect(table.Properties['TimeToLiveSpecification']).toEqual(
        'ttlAttribute' in definition ? { AttributeName: definition.ttlAttribute, Enabled: true } : undefined,
      );
      expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      const indexes = (table.Properties['GlobalSecondaryIndexes'] ?? []) as {
        IndexName: string;
        KeySchema: unknown;
        Projection: unknown;
      }[];
      expect(indexes.map((i) => [i.IndexName, i.KeySchema, i.Projection])).toEqual(
        ('indexes' in definition ? definition.indexes : []).map((index) => [
          index.name,
          [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          'nonKeyAttributes' in index
            ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.nonKeyAttributes] }
            : { ProjectionType: 'ALL' },
        ]),
      );
    }
    // The task list (docs/api-contract.md, "Listing tasks"): an account's tasks newest first, keyed by what every task already holds.
    expect(TABLES.tasks.indexes).toContain(TASKS_BY_ACCOUNT_INDEX);
    expect(TASKS_BY_ACCOUNT_INDEX).toMatchObject({
      name: 'by-account',
      partitionKey: 'account_id',
      sortKey: 'created_at',
    });
    // The pending-webhooks index projects only what the requeuer filters on.
    expect(TASKS_WEBHOOK_PENDING_INDEX.nonKeyAttributes).toEqual(['status', 'updated_at']);
    // Upstream capacity (docs/upstream-capacity.md): the accounts by id, the waiting room by provider in submit order,
    // and the tasks holding a slot by account (what the reconciler repairs from), projecting only the status.
    expect(TABLES.upstreamAccounts).toMatchObject({ partitionKey: 'id' });
    expect(TABLES.upstreamQueue).toMatchObject({ partitionKey: 'provider', sortKey: 'position' });
    expect(TABLES.tasks.indexes).toContain(TASKS_SLOT_HOLDERS_INDEX);
    expect(TASKS_SLOT_HOLDERS_INDEX).toEqual({
      name: 'slot-holders',
      partitionKey: 'upstream_slot',
      sortKey: 'updated_at',
      nonKeyAttributes: ['status'],
    });
  });
});

describe('S3', () => {
  it('video bucket: named from the prefix, no public access, encrypted, unversioned, lifecycle rules, retained', () => {
    const [logicalId, bucket] = Object.entries(service.statefulJson.Resources).find(
      ([, r]) => r.Type === 'AWS::S3::Bucket' && JSON.stringify(r.Properties['BucketName'] ?? '').includes('videos'),
    ) as [string, CfnResource];
    expect(JSON.stringify(bucket.Properties['BucketName'])).toContain(`"${service.prefix}-videos-"`);
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LoggingConfiguration: { LogFilePrefix: 's3/videos/' },
    });
    expect(bucket.Properties['VersioningConfiguration']).toBeUndefined();
    expect(bucket.Properties['LifecycleConfiguration']).toEqual({
      Rules: [
        {
          Id: 'abort-incomplete-multipart-uploads',
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          Status: 'Enabled',
        },
        { Id: 'expire-uploads', Prefix: 'uploads/', ExpirationInDays: 2, Status: 'Enabled' },
        // The default storage policy (operations-stack.test.ts): kept, Standard-IA after 30 days.
        {
          Id: 'videos-storage-policy',
          Prefix: 'videos/',
          Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 30 }],
          Status: 'Enabled',
        },
      ],
    });
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain' });
    expect(hasTlsOnlyPolicy('AWS::S3::BucketPolicy', 'Bucket', logicalId)).toBe(true);
  });

  it('every bucket blocks public access and refuses plain HTTP', () => {
    for (const [logicalId, bucket] of resourcesOfType(service.statefulJson, 'AWS::S3::Bucket')) {
      expect(bucket.Properties['PublicAccessBlockConfiguration']).toMatchObject({ BlockPublicPolicy: true });
      expect(hasTlsOnlyPolicy('AWS::S3::BucketPolicy', 'Bucket', logicalId), logicalId).toBe(true);
    }
  });
});

/** A resource policy denying every request made without TLS (`aws:SecureTransport` false). */
function hasTlsOnlyPolicy(policyType: string, targetKey: string, logicalId: string): boolean {
  return resourcesOfType(service.statefulJson, policyType).some(([, policy]) => {
    const targets = ([] as unknown[]).concat(policy.Properties[targetKey]);
    if (!targets.some((t) => JSON.stringify(t).includes(`"${logicalId}"`))) return false;
    const statements = (policy.Properties['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement;
    return statements.some(
      (s) =>
        s['Effect'] === 'Deny' &&
        JSON.stringify(s['Condition']) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
    );
  });
}

describe('CloudFront', () => {
  it('serves the video bucket through Origin Access Control, only to URLs signed by the trusted key group', () => {
    service.stateful.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    service.stateful.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          TrustedKeyGroups: [{ Ref: Match.anyValue() }],
          ViewerProtocolPolicy: 'https-only',
        }),
        Origins: [Match.objectLike({ OriginAccessControlId: Match.anyValue() })],
        Logging: Match.objectLike({ Prefix: 'cloudfront/' }),
      }),
    });
    service.stateful.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' } }),
        ]),
      },
    });
  });

  it('while no signing key is configured, stands a parameter no value satisfies in for it (deploy-lifecycle.test.ts)', () => {
    service.stateful.hasResourceProperties('AWS::CloudFront::PublicKey', {
      PublicKeyConfig: Match.objectLike({ EncodedKey: { Ref: 'CloudFrontSigningKeyNotConfigured' } }),
    });
  });
});

interface AslRetrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxAttempts?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: string;
}
interface AslCatcher {
  ErrorEquals: string[];
  ResultPath?: string | null;
  Next: string;
}
interface AslState {
  Type: string;
  Resource?: string;
  Parameters?: Record<string, unknown>;
  TimeoutSeconds?: number;
  TimeoutSecondsPath?: string;
  ResultPath?: string | null;
  Seconds?: number;
  Next?: string;
  Retry?: AslRetrier[];
  Catch?: AslCatcher[];
}
function aslStates(): Record<string, AslState> {
  return (JSON.parse(readAslDefinition()) as { States: Record<string, AslState> }).States;
}
function stateMachine(): CfnResource {
  const [[, machine]] = resourcesOfType(service.statelessJson, 'AWS::StepFunctions::StateMachine') as [
    [string, CfnResource],
  ];
  return machine;
}

/** A Lambda invoke whose state then waits for its task token (SendTaskSuccess) or its timeout. */
const WAIT_FOR_TASK_TOKEN = 'arn:${Partition}:states:::lambda:invoke.waitForTaskToken';
/**
 * The state's clock runs from the invoke: a cold start's Init (up to 10 s, then retried within the invoke:
 * "Lambda execution environment lifecycle") and the invoke itself come on top of the function's timeout.
 */
const INVOKE_MARGIN_SECONDS = 15;

/** The ASL token (`${…FunctionArn}`) of the function a Task state invokes: its Resource, or its FunctionName. */
function functionToken(state: AslState): string | undefined {
  const target = state.Resource === WAIT_FOR_TASK_TOKEN ? state.Parameters?.['FunctionName'] : state.Resource;
  return /^\$\{(\w+)\}$/.exec(typeof target === 'string' ? target : '')?.[1];
}
/** The deployed timeout (seconds) of the function a Task state invokes; undefined for a state invoking none. */
function functionTimeoutOf(state: AslState): number | undefined {
  const token = functionToken(state);
  if (!token) return undefined;
  const substitutions = stateMachine().Properties['DefinitionSubstitutions'] as Record<string, unknown>;
  if (!substitutions[token]) throw new Error(`no function behind \${${token}}`);
  const target = functionBehindAlias(service, substitutions[token]);
  return Number(service.statelessJson.Resources[target]?.Properties['Timeout'] ?? 3);
}
/**
 * The timeouts a state's tries may have: its TimeoutSeconds, or for AwaitCompletion (TimeoutSecondsPath) the
 * `check_seconds` StartUpstream returns, one of the two values deployed in its environment.
 */
function stateTimeouts(state: AslState): number[] {
  if (state.TimeoutSeconds !== undefined) return [state.TimeoutSeconds];
  if (state.TimeoutSecondsPath === '$.watch.check_seconds') {
    const env = envOf('StartUpstream');
    return [ENV.completionCheckSeconds.name, ENV.completionPollSeconds.name].map((name) => Number(env[name]));
  }
  return [];
}
/** A retrier's waits before each of its retries, the longest possible (no jitter, ASL defaults). */
function retryWaits(retrier: AslRetrier): number[] {
  return Array.from({ length: retrier.MaxAttempts ?? 3 }, (_, retry) =>
    Math.min((retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** retry, retrier.MaxDelaySeconds ?? Infinity),
  );
}
/**
 * The longest a state can take: every retry's longest wait (ASL defaults); the first try to `timeout`, each
 * retried try to `retriedTry` (by default to the timeout too). A throttled try ends at once (Lambda refuses the
 * invoke: no function runs), so a throttle's own retrier adds its waits, and no try that can run longer.
 */
function worstCase(state: AslState | undefined, timeout = state?.TimeoutSeconds ?? 60, retriedTry = timeout): number {
  if (state?.Type === 'Wait') return state.Seconds ?? 0;
  if (state?.Type !== 'Task') return 0;
  const retriers = state.Retry ?? [];
  const throttleOnly = (retrier: AslRetrier) =>
    retrier.ErrorEquals.length === 1 && retrier.ErrorEquals[0] === 'Lambda.TooManyRequestsException';
  const retries = retriers
    .filter((retrier) => !throttleOnly(retrier))
    .reduce((total, retrier) => total + (retrier.MaxAttempts ?? 3), 0);
  const waits = retriers.flatMap(retryWaits);
  return timeout + retries * retriedTry + waits.reduce((total, wait) => total + wait, 0);
}

/**
 * The state machine's name: the prefix's, then the start of the stack's id, which CloudFormation makes anew for
 * every stack it creates. A teardown leaves the old machine draining under its name; the redeploy's differs.
 */
function deployedName() {
  const stackUuid = { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] };
  return {
    'Fn::Join': [
      '-',
      [physicalNames(service.prefix).stateMachine, { 'Fn::Select': [0, { 'Fn::Split': ['-', stackUuid] }] }],
    ],
  };
}

describe('Step Functions', () => {
  it('has a name of its own in each stack, so a redeploy right after a teardown never waits for the old one', () => {
    const [[, machine]] = resourcesOfType(service.statelessJson, 'AWS::StepFunctions::StateMachine') as [
      [string, CfnResource],
    ];
    expect(machine.Properties['StateMachineName']).toEqual(deployedName());
    // Two stack ids give two names; the one prefix gives one name per stack (80 characters at most).
    const nameFor = (stackId: string) =>
      `${physicalNames(service.prefix).stateMachine}-${stackId.split('/')[2]!.split('-')[0]}`;
    const first = nameFor(
      'arn:aws:cloudformation:eu-west-1:123456789012:stack/vgs-stateless/0f1e2d3c-aaaa-bbbb-cccc-111111111111',
    );
    const again = nameFor(
      'arn:aws:cloudformation:eu-west-1:123456789012:stack/vgs-stateless/9a8b7c6d-aaaa-bbbb-cccc-222222222222',
    );
    expect(first).not.toBe(again);
    expect(first.length).toBeLessThanOrEqual(80);
    // Its log group follows the name, so it too is new in each stack.
    const logs = JSON.stringify(
      resourcesOfType(service.statelessJson, 'AWS::Logs::LogGroup').map(([, g]) => g.Properties['LogGroupName']),
    );
    expect(logs).toContain('/aws/vendedlogs/states/');
    expect(logs).toContain('AWS::StackId');
  });

  it('is a Standard state machine from the ASL file, logging ALL to CloudWatch, traced', () => {
    const [[, machine]] = resourcesOfType(service.statelessJson, 'AWS::StepFunctions::StateMachine') as [
      [string, CfnResource],
    ];
    expect(machine.Properties).toMatchObject({
      StateMachineName: deployedName(),
      StateMachineType: 'STANDARD',
      DefinitionString: readAslDefinition(),
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: true },
      TracingConfiguration: { Enabled: true },
    });
  });

  it('waits for an upstream slot and for the job to end with task tokens; only the deadline ends either wait', () => {
    const definition = JSON.parse(readAslDefinition()) as { StartAt: string; TimeoutSeconds: number };
    const states = aslStates();
    // Uploaded references are made ready (H.265 transcoded) before the wait, so a transcode holds no slot.
    expect(definition.StartAt).toBe('PrepareInputs');
    expect(states['PrepareInputs']?.Next).toBe('WaitForUpstreamSlot');
    expect(Object.keys(states)).not.toContain('PollUpstream');
    expect(Object.keys(states)).not.toContain('WaitBeforeFirstPoll');
    // The order: a slot, the job's create, the wait for its end.
    expect(states['WaitForUpstreamSlot']?.Next).toBe('StartUpstream');
    expect(states['StartUpstream']?.Next).toBe('AwaitCompletion');
    expect(states['AwaitCompletion']?.Next).toBe('RouteUpstreamState');
    // AwaitCompletion's timeout (its fallback poll) is what StartUpstream returns, kept beside the input.
    expect(states['StartUpstream']?.ResultPath).toBe('$.watch');
    expect(states['AwaitCompletion']?.TimeoutSecondsPath).toBe('$.watch.check_seconds');

    for (const name of ['WaitForUpstreamSlot', 'AwaitCompletion']) {
      const state = states[name] as AslState;
      const { aslToken } = WORKFLOW_FUNCTIONS.find((f) => f.id === name)!;
      expect(state, name).toMatchObject({
        Type: 'Task',
        Resource: WAIT_FOR_TASK_TOKEN,
        Parameters: {
          FunctionName: `\${${aslToken}}`,
          Payload: { 'task_id.$': '$.task_id', 'task_token.$': '$$.Task.Token' },
        },
      });
      // A try unanswered by its timeout tries again (with a new token): the first retrier to match a timeout.
      const retriers = state.Retry ?? [];
      const loopIndex = retriers.findIndex(
        (r) => r.ErrorEquals.includes('States.Timeout') || r.ErrorEquals.includes('States.ALL'),
      );
      const loop = retriers[loopIndex] as AslRetrier;
      expect(loop?.ErrorEquals, name).toEqual(['States.Timeout']);
      expect(
        retriers.filter((r) => r.ErrorEquals.includes('States.Timeout')),
        name,
      ).toHaveLength(1);
      // Without jitter, so that the sum is known: the tries, each to the shortest timeout, and the waits
      // between them outlast the machine's own timeout, so MaxAttempts never ends the wait.
      expect(loop, name).not.toHaveProperty('JitterStrategy');
      const shortest = Math.min(...stateTimeouts(state));
      const outlasts = retryWaits(loop).reduce((total, wait) => total + shortest + wait, 0);
      expect(outlasts, name).toBeGreaterThan(definition.TimeoutSeconds);
      // The task's deadline, checked by the function on every try, ends it: that error is never retried, and
      // the task fails and is refunded.
      const retried = retriers.flatMap((r) => r.ErrorEquals);
      for (const error of ['GenerationTimedOutError', 'States.ALL', 'States.TaskFailed']) {
        expect(retried, name).not.toContain(error);
      }
      expect(state.Catch, name).toEqual([
        { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'FailAndRefund' },
      ]);
    }
    // The sums as designed: 420 × (120 + 1) s and 1500 × (60 + 1) s, both above 14 h.
    expect(stateTimeouts(states['WaitForUpstreamSlot'] as AslState)).toEqual([120]);
    expect(Math.min(...stateTimeouts(states['AwaitCompletion'] as AslState))).toBe(60);

    // An upstream with no room after all: straight back to the waiting room (the account's cool-down is the
    // room's to wait out, not the execution's), not retried in place and never refunded; the error kept
    // beside the input (the task id is still needed).
    const start = states['StartUpstream'] as AslState;
    expect(start.Retry?.flatMap((r) => r.ErrorEquals)).not.toContain('WaitingForUpstreamError');
    const catchers = start.Catch ?? [];
    const back = catchers.findIndex((c) => c.ErrorEquals.includes('WaitingForUpstreamError'));
    const all = catchers.findIndex((c) => c.ErrorEquals.includes('States.ALL'));
    expect(back).toBeGreaterThanOrEqual(0);
    expect(back).toBeLessThan(all);
    expect(catchers[back]).toMatchObject({ ErrorEquals: ['WaitingForUpstreamError'], Next: 'WaitForUpstreamSlot' });
    expect(catchers[back]?.ResultPath).toMatch(/^\$\.\w+$/);
    expect(Object.values(states).filter((state) => state.Type === 'Wait')).toEqual([]);
  });

  it("retries Lambda's invoke errors in every Lambda state; a completion look's crash too; never a create's unknown outcome", () => {
    // AWS's list ("Handle Lambda service exceptions", Step Functions developer guide), plus Lambda's throttle.
    const invokeErrors = [
      'Lambda.ServiceException',
      'Lambda.AWSLambdaException',
      'Lambda.SdkClientException',
      'Lambda.ClientExecutionTimeoutException',
      'Lambda.TooManyRequestsException',
    ];
    const retried = (state: string) => aslStates()[state]?.Retry?.flatMap((retrier) => retrier.ErrorEquals) ?? [];
    for (const definition of WORKFLOW_FUNCTIONS) {
      // Each step's state is named as its function and invokes it.
      expect(functionToken(aslStates()[definition.id] ?? { Type: 'missing' }), definition.id).toBe(definition.aslToken);
      expect(retried(definition.id), definition.id).toEqual(expect.arrayContaining(invokeErrors));
    }
    // A function timeout or out-of-memory ("Lambda.Unknown"; Lambda names a timeout "Sandbox.Timedout") ends a
    // look at the job, which only reads: looked at again, not refunded while the job goes on generating.
    expect(retried('AwaitCompletion')).toEqual(expect.arrayContaining(['Lambda.Unknown', 'Sandbox.Timedout']));
    // A create that may have made a job is never run again: Ark has no idempotency key.
    for (const unknown of ['Lambda.Unknown', 'Sandbox.Timedout', 'States.Timeout', 'States.ALL', 'States.TaskFailed']) {
      expect(retried('StartUpstream')).not.toContain(unknown);
    }
    expect(retried('StartUpstream')).not.toContain('UpstreamOutcomeUnknownError');
  });

  it("gives every Lambda state a timeout above its function's timeout, with room for the invoke and a cold start", () => {
    const taskStates = Object.entries(aslStates()).filter(([, state]) => state.Type === 'Task');
    let lambdaStates = 0;
    for (const [name, state] of taskStates) {
      const timeouts = stateTimeouts(state);
      expect(timeouts.length, name).toBeGreaterThan(0);
      for (const timeout of timeouts) expect(timeout, name).toEqual(expect.any(Number));
      const functionTimeout = functionTimeoutOf(state);
      if (functionTimeout === undefined) {
        // sqs:sendMessage: no function
        expect(state.Resource, name).toMatch(/^arn:\$\{Partition\}:states:::sqs:/);
        continue;
      }
      lambdaStates += 1;
      // A `.waitForTaskToken` state's timeout counts from its invoke too: the shortest may not cut it short.
      expect(Math.min(...timeouts), name).toBeGreaterThanOrEqual(functionTimeout + INVOKE_MARGIN_SECONDS);
    }
    expect(lambdaStates).toBe(WORKFLOW_FUNCTIONS.length);
  });

  it('times out an execution only past the longest legitimate one: the 6 h deadline, then every later step', () => {
    // The longest a model may generate (functions/core/video-model.ts: max_generation_seconds ≤ 21,600).
    const MAX_GENERATION_SECONDS = 6 * 3600;
    const definition = JSON.parse(readAslDefinition()) as { TimeoutSeconds?: number };
    const waits = ['WaitForUpstreamSlot', 'AwaitCompletion'];
    // The wait for a slot and the wait for the job's end both end at the deadline, checked by their function on
    // every try: each may overrun it by the try then in flight (to its longest timeout) and its retry's wait,
    // then a last try with all its other retries. A try that fails with an error other than its timeout ended
    // with its invoke (nobody answers these tokens with a failure: the functions only send SendTaskSuccess), so
    // each such retried try lasts at most the function's timeout and the invoke's margin.
    const tail = (name: string) => {
      const state = aslStates()[name] as AslState;
      const loop = state.Retry?.find((retrier) => retrier.ErrorEquals.includes('States.Timeout')) as AslRetrier;
      const others = state.Retry?.filter((retrier) => retrier !== loop);
      expect(others?.flatMap((retrier) => retrier.ErrorEquals) ?? [], name).not.toContain('States.ALL');
      const timeout = Math.max(...stateTimeouts(state));
      const invoke = Math.min(timeout, Number(functionTimeoutOf(state)) + INVOKE_MARGIN_SECONDS);
      return timeout + Math.max(...retryWaits(loop)) + worstCase({ ...state, Retry: others }, timeout, invoke);
    };
    const loopTails = waits.reduce((total, name) => total + tail(name), 0);
    // Every other state runs at most once past the deadline (StartUpstream and the pause before the waiting
    // room included: the next entry to the room fails), each with all its retries, each try to its timeout.
    const rest = Object.entries(aslStates())
      .filter(([name]) => !waits.includes(name))
      .reduce((total, [, state]) => total + worstCase(state), 0);
    // A job created just before the deadline is waited for until Ark expires it: at most its minimum hour later.
    const upstreamExpiry = ARK_EXPIRY_SECONDS.min + UPSTREAM_EXPIRY_GRACE_MS / 1000;
    expect(Number.isFinite(loopTails + rest + upstreamExpiry)).toBe(true);
    expect(definition.TimeoutSeconds).toBeGreaterThan(MAX_GENERATION_SECONDS + upstreamExpiry + loopTails + rest);
    // And well below Standard's one year: a wedged execution ends, is alarmed (ExecutionsTimedOut) and restarted.
    // 14 h: the throttles' own retries (docs/task-lifecycle.md, "Throttles") took the 12 h it was.
    expect(definition.TimeoutSeconds).toBeLessThanOrEqual(14 * 3600);
  });

  it('has a substitution for every ${Token} of the ASL: each function ARN, the webhook queue', () => {
    const [[, machine]] = resourcesOfType(service.statelessJson, 'AWS::StepFunctions::StateMachine') as [
      [string, CfnResource],
    ];
    const substitutions = machine.Properties['DefinitionSubstitutions'] as Record<string, unknown>;
    const tokens = aslTokens(readAslDefinition());
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(substitutions, token).toHaveProperty(token);
    for (const definition of WORKFLOW_FUNCTIONS) {
      expect(functionBehindAlias(service, substitutions[definition.aslToken])).toBe(fn(definition.id)[0]);
    }
    const [, queue] = crossStackResource(service, substitutions[ASL_RESOURCE_TOKENS.webhookQueueUrl]);
    expect(queue.Properties['QueueName']).toBe(physicalNames(service.prefix).webhookQueue);
  });

  it("names service integrations in the stack's own partition (aws, aws-cn), never a hard-coded arn:aws:", () => {
    const substitutions = stateMachine().Properties['DefinitionSubstitutions'] as Record<string, unknown>;
    expect(substitutions[ASL_RESOURCE_TOKENS.partition]).toEqual({ Ref: 'AWS::Partition' });
    expect(readAslDefinition()).not.toMatch(/arn:aws[a-z-]*:/);
    const integrations = Object.values(aslStates()).filter((state) => state.Resource?.includes(':states:::'));
    expect(integrations.length).toBeGreaterThan(0);
    for (const state of integrations) expect(state.Resource).toMatch(/^arn:\$\{Partition\}:states:::/);
  });

  it('may invoke each workflow function and queue webhooks, and nothing on tables: granted explicitly', () => {
    const [[, machine]] = resourcesOfType(service.statelessJson, 'AWS::StepFunctions::StateMachine') as [
      [string, CfnResource],
    ];
    const role = (machine.Properties['RoleArn'] as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const statements = statementsOf(role);
    const invoke = statements.find((s) => s.Action === 'lambda:InvokeFunction');
    // Each function's `live` alias, and nothing else (live-rollouts.ts).
    const invoked = ([] as unknown[]).concat(invoke?.Resource).map((arn) => functionBehindAlias(service, arn));
    expect(invoked.sort()).toEqual(WORKFLOW_FUNCTIONS.map((f) => fn(f.id)[0]).sort());
    // Every task write goes through a function: the machine itself touches no table.
    expect(statements.filter((s) => ([] as string[]).concat(s.Action).some((a) => a.startsWith('dynamodb:')))).toEqual(
      [],
    );
    const send = statements.find((s) => ([] as string[]).concat(s.Action).includes('sqs:SendMessage'));
    expect(crossStackResource(service, send?.Resource)[1].Properties['QueueName']).toBe(
      physicalNames(service.prefix).webhookQueue,
    );
  });
});

describe('SQS', () => {
  it('webhook queue: TLS only, encrypted, redrives to its DLQ, visibility ≥ 6 × the consumer timeout', () => {
    const names = physicalNames(service.prefix);
    const [queueId, queue] = resourceWith(service.statefulJson, 'AWS::SQS::Queue', 'QueueName', names.webhookQueue);
    const [dlqId, dlq] = resourceWith(
      service.statefulJson,
      'AWS::SQS::Queue',
      'QueueName',
      names.webhookDeadLetterQueue,
    );
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
        maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount,
      },
    });
    expect(queue.Properties['VisibilityTimeout']).toBeGreaterThanOrEqual(6 * WEBHOOK_QUEUE.consumer.timeoutSeconds);
    expect(dlq.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    for (const id of [queueId, dlqId]) expect(hasTlsOnlyPolicy('AWS::SQS::QueuePolicy', 'Queues', id), id).toBe(true);
  });
});

describe('Secrets Manager', () => {
  it("holds each upstream provider's key (retained) and each CloudFront signing key (webhook secrets are per account, in its table)", () => {
    const secrets = resourcesOfType(service.statefulJson, 'AWS::SecretsManager::Secret');
    for (const [id, secret] of secrets) {
      expect(secret.Properties, id).not.toHaveProperty('SecretString');
      // Generated names: a redeploy of the prefix never meets a reserved one (deploy-lifecycle.test.ts).
      expect(secret.Properties, id).not.toHaveProperty('Name');
    }
    const providerKeys = secrets.filter(([id]) => /ApiKey/.test(id));
    const keyOf = (name: string) => name.replaceAll('-', '').toLowerCase();
    expect(providerKeys.map(([id]) => keyOf(id.replace(/ApiKey.*/, '').replace(/^Data/, ''))).sort()).toEqual(
      PROVIDER_NAMES.map(keyOf).sort(),
    );
    for (const [id, secret] of providerKeys) expect(secret, id).toMatchObject({ DeletionPolicy: 'Retain' });
    expect(secrets.filter(([id]) => id.includes('SigningKey'))).toHaveLength(1);
    // And our Alipay app's private key (docs/money-and-ledger.md, "Top-ups").
    expect(secrets.filter(([id]) => id.includes('AlipayAppPrivateKey'))).toHaveLength(1);
    expect(secrets).toHaveLength(PROVIDER_NAMES.length + 2);
  });
});

describe('alarms', () => {
  const alarms = () => resourcesOfType(service.statelessJson, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const metricsOf = (alarm: Record<string, unknown>) =>
    JSON.stringify(alarm['Metrics'] ?? { MetricName: alarm['MetricName'], Namespace: alarm['Namespace'] });

  it('page the alarms topic by severity, open tickets on the tickets topic, and never page a recovery (TLS only)', () => {
    const topic = (name: string) => ({
      Ref: resourceWith(service.statelessJson, 'AWS::SNS::Topic', 'TopicName', `${service.prefix}-${name}`)[0],
    });
    expect(alarms().length).toBeGreaterThan(0);
    const paging = alarms().filter((alarm) =>
      pages(`${String(alarm['AlarmName']).slice(service.prefix.length + 1)}Alarm`),
    );
    expect(paging.length).toBeGreaterThan(5);
    expect(paging.length).toBeLessThan(alarms().length / 2);
    for (const alarm of alarms()) {
      const id = `${String(alarm['AlarmName']).slice(service.prefix.length + 1)}Alarm`;
      expect(alarm['AlarmActions'], id).toEqual([topic(pages(id) ? 'alarms' : 'tickets')]);
      expect(alarm['OKActions'], id).toEqual([topic('tickets')]);
    }
    service.stateless.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('fire on any message in the webhook DLQ or the task starts DLQ', () => {
    const dlqAlarms = alarms().filter((a) => a['MetricName'] === 'ApproximateNumberOfMessagesVisible');
    for (const alarm of dlqAlarms) {
      expect(alarm).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', Namespace: 'AWS/SQS' });
    }
    const queues = dlqAlarms.map((alarm) => {
      const dimension = (alarm['Dimensions'] as { Name: string; Value: unknown }[])[0];
      return crossStackResource(service, dimension?.Value)[1].Properties['QueueName'];
    });
    const names = physicalNames(service.prefix);
    expect(queues.sort()).toEqual([names.taskStartsDeadLetterQueue, names.webhookDeadLetterQueue].sort());
  });

  it("fire on webhook messages piling up in flight, far below the queue's in-flight quota", () => {
    const [alarm] = alarms().filter((a) => a['MetricName'] === 'ApproximateNumberOfMessagesNotVisible');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: WEBHOOK_IN_FLIGHT_ALARM_MESSAGES,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    const dimension = (alarm?.['Dimensions'] as { Name: string; Value: unknown }[])[0];
    expect(crossStackResource(service, dimension?.Value)[1].Properties['QueueName']).toBe(
      physicalNames(service.prefix).webhookQueue,
    );
    // Above what the event source itself holds in flight, far below SQS's ~120,000.
    const held = WEBHOOK_QUEUE.consumer.maxConcurrency * WEBHOOK_QUEUE.consumer.batchSize;
    expect(WEBHOOK_IN_FLIGHT_ALARM_MESSAGES).toBeGreaterThan(held);
    expect(WEBHOOK_IN_FLIGHT_ALARM_MESSAGES).toBeLessThan(120_000 / 10);
  });

  it('fire on failed and timed-out executions', () => {
    for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut']) {
      expect(alarms().find((a) => a['MetricName'] === metric)).toMatchObject({
        Namespace: 'AWS/States',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('fire on the API 5xx rate', () => {
    const rate = alarms().find((a) => metricsOf(a).includes('"5xx"'));
    expect(metricsOf(rate ?? {})).toContain('100 * errors / requests');
    expect(rate).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanThreshold' });
  });

  it('fire on the upstream error rate, from the metrics the functions emit', () => {
    const rate = alarms().find((a) => metricsOf(a).includes('"UpstreamErrors"'));
    expect(metricsOf(rate ?? {})).toContain('"UpstreamRequests"');
    expect(metricsOf(rate ?? {})).toContain('"VideoGeneration"');
    expect(rate).toMatchObject({ Threshold: 20, ComparisonOperator: 'GreaterThanThreshold' });
  });

  it('fire on the first upstream error only an operator can fix (a refused key or account, a model not offered)', () => {
    // One per provider.
    const found = alarms().filter((a) => a['MetricName'] === 'UpstreamOperatorErrors');
    expect(found).toHaveLength(PROVIDER_NAMES.length);
    for (const provider of PROVIDER_NAMES) {
      expect(found).toContainEqual(
        expect.objectContaining({
          Namespace: 'VideoGeneration',
          Statistic: 'Sum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          Dimensions: expect.arrayContaining([{ Name: 'provider', Value: provider }]),
        }),
      );
    }
  });

  it('fire on the first upstream job orphaned or adopted (a lost create), from the metrics the functions emit', () => {
    for (const metric of ['UpstreamJobsOrphaned', 'UpstreamJobsAdopted']) {
      expect(alarms().filter((a) => a['MetricName'] === metric)).toEqual([
        expect.objectContaining({
          Namespace: 'VideoGeneration',
          Statistic: 'Sum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        }),
      ]);
    }
  });

  it('fire on Lambda errors of every function', () => {
    for (const id of ALL_FUNCTION_IDS) {
      const [logicalId] = fn(id);
      const errors = alarms().filter(
        (a) => metricsOf(a).includes('"Errors"') && JSON.stringify(a).includes(`{"Ref":"${logicalId}"}`),
      );
      expect(errors, id).toHaveLength(1);
    }
  });

  it("leave StartUpstream's designed throws (back to the waiting room) out of its error rate, and only those", () => {
    const excluding = '100 * (errors - FILL(designed, 0)) / (invocations - FILL(designed, 0))';
    const alarmOf = (id: string) => {
      const [logicalId] = fn(id);
      // Its error alarm (its throttle alarm names it too: operations-stack.test.ts).
      const found = alarms().filter(
        (a) =>
          JSON.stringify(a).includes(`{"Ref":"${logicalId}"}`) && a['AlarmName'] === `${service.prefix}-${id}Errors`,
      );
      expect(found, id).toHaveLength(1);
      return found[0] as Record<string, unknown>;
    };
    expect(metricsOf(alarmOf('StartUpstream'))).toContain('"UpstreamStartsDeferred"');
    expect(JSON.stringify(alarmOf('StartUpstream'))).toContain(excluding);
    // Every other step's errors all count (a wait's deadline included: the task fails).
    for (const { id } of WORKFLOW_FUNCTIONS.filter((definition) => definition.id !== 'StartUpstream')) {
      expect(JSON.stringify(alarmOf(id)), id).not.toContain('designed');
    }
  });
});

/** Every resource type the service is expected to have, so an unexpected one (a custom resource…) shows up. */
it('has no resources beyond the expected kinds (no custom resources, no Docker-built assets)', () => {
  const types = new Set(
    [...Object.values(service.statefulJson.Resources), ...Object.values(service.statelessJson.Resources)].map(
      (r) => r.Type,
    ),
  );
  for (const type of types) expect(type).toMatch(/^AWS::(?!CloudFormation::CustomResource)/);
  expect([...types].filter((t) => t.startsWith('Custom::'))).toEqual([]);
});

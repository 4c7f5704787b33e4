/**
 * Every Lambda function of the service (ALL_FUNCTIONS in lib/routes.ts), with what each one uses listed
 * in one table below: what its handler reads at cold start (functions/adapters/*-dependencies.ts) and the
 * calls it makes. A function without an entry here stops synthesis.
 */
import { PROVIDER_NAMES } from '../../functions/core/providers.js';
import { UPSTREAM_CLAIM_LEASE_MS } from '../../functions/core/use-cases/upstream-claim.js';
import type { ProviderName } from '../../functions/core/providers.js';
import { ENV, providerEnv } from '../../functions/adapters/config.js';
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import type { Architecture, ILayerVersion, CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  API_KEYS_BY_ACCOUNT_INDEX,
  LEDGER_BY_TIME_INDEX,
  physicalNames,
  TABLES,
  TASK_STARTS,
  TASKS_BY_ACCOUNT_INDEX,
  TASKS_IN_FLIGHT_INDEX,
  TASKS_SLOT_HOLDERS_INDEX,
  TASKS_WEBHOOK_PENDING_INDEX,
  UPLOAD_TRANSCODER,
  WEBHOOK_QUEUE,
} from '../../functions/adapters/resources.js';
import type { RouteDefinition, WorkflowFunctionDefinition } from '../routes.js';
import { ALL_FUNCTIONS, API_ROUTES, DEFAULT_ROUTE, SCHEDULED_FUNCTIONS, WORKFLOW_FUNCTIONS } from '../routes.js';
import type { ExternalFfmpegLayer } from './ffmpeg-layer.js';
import { ffmpegLayer } from './ffmpeg-layer.js';
import { RESERVED_CONCURRENCY } from './concurrency.js';
import type { DynamoDbAction } from './function-access.js';
import {
  answerTaskTokens,
  config,
  invokeFunction,
  queryIndex,
  secret,
  sendWebhookMessages,
  table,
  taskExecutions,
  transcodeUploads,
  uploadObjects,
  writeVideos,
} from './function-access.js';
import type { FunctionAccess } from './service-function.js';
import { ServiceFunction } from './service-function.js';
import type { StatefulResources } from './stateful-resources.js';
import { videoBucketName } from './stateful-resources.js';
import type { VideoDelivery } from './video-delivery.js';

const TRANSFER_TIMEOUT = Duration.minutes(15);
/**
 * PrepareInputs: a 50 MB H.265 upload copied and transcoded by TranscodeUpload, whose call it waits for (its
 * state's TimeoutSeconds, 160, is above it; the machine's 12 h leaves no room for more, as it must hold every
 * state's worst case with its retries).
 */
const PREPARE_INPUTS_TIMEOUT = Duration.seconds(UPLOAD_TRANSCODER.timeoutSeconds + 10);
/** The download gets the Lambda's time less three minutes, left to finish the multipart upload. */
const VIDEO_DOWNLOAD_TIMEOUT = TRANSFER_TIMEOUT.minus(Duration.minutes(3));
/** Where videos are written (functions/core/use-cases/lifecycle-steps.ts: `videos/<account>/<task>.mp4`). */
const VIDEO_KEYS = 'videos/*';
/**
 * StartUpstream's claim on a task outlives the function by at least this: a claim past its lease is then
 * never one whose create is still running (docs/task-lifecycle.md, "Claims before upstream creates").
 */
const CLAIM_LEASE_MARGIN = Duration.seconds(30);
const START_UPSTREAM_TIMEOUT = Duration.seconds(50);
if (START_UPSTREAM_TIMEOUT.plus(CLAIM_LEASE_MARGIN).toMilliseconds() > UPSTREAM_CLAIM_LEASE_MS) {
  throw new Error('StartUpstream may outlive its claim on the task: raise UPSTREAM_CLAIM_LEASE_MS');
}

interface FunctionSpec {
  /** What the function may use: environment and IAM together. */
  readonly uses: FunctionAccess[];
  /** @default 10 seconds */
  readonly timeout?: Duration;
  readonly memorySize?: number;
  readonly architecture?: Architecture;
  readonly layers?: readonly ILayerVersion[];
}

export interface ProviderEndpoint {
  platform: string;
  baseUrl: string;
}

export interface ServiceFunctionsProps {
  readonly prefix: string;
  /** The state machine's name in this deployment (task-workflow.ts, deployedStateMachineName). */
  readonly stateMachineName: string;
  /** Each upstream provider's endpoint. */
  readonly providerEndpoints: Readonly<Record<ProviderName, ProviderEndpoint>>;
  readonly data: StatefulResources;
  readonly delivery: VideoDelivery;
  /** An operator's ffmpeg layer (context `ffmpegLayerArn`); unset: the npm package's build. */
  readonly ffmpegLayer?: ExternalFfmpegLayer;
  /** Days the video bucket keeps a finished video (stateful-resources.ts); unset: kept. */
  readonly videoRetentionDays?: number;
  /** Give the functions of RESERVED_CONCURRENCY their reservation (concurrency.ts). */
  readonly reserveConcurrency: boolean;
}

export class ServiceFunctions extends Construct {
  /** Every function, by its id in the definitions. */
  readonly byId: Readonly<Record<string, ServiceFunction>>;
  readonly routes: readonly { readonly route: RouteDefinition; readonly handler: ServiceFunction }[];
  readonly defaultRoute: ServiceFunction;
  readonly workflow: readonly { readonly definition: WorkflowFunctionDefinition; readonly handler: ServiceFunction }[];
  /** Delivers completion webhooks from the webhook queue. */
  readonly webhookConsumer: ServiceFunction;
  /** Starts each new task's execution from the tasks table's stream. */
  readonly taskStarter: ServiceFunction;
  readonly scheduled: readonly ServiceFunction[];
  /** Decodes and transcodes uploads for PrepareInputs, and may touch nothing else. */
  readonly transcoder: ServiceFunction;
  /** The functions with reserved concurrency (concurrency.ts), by id. */
  readonly reserved: readonly { readonly id: string; readonly handler: ServiceFunction }[];

  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    const { prefix, data, delivery } = props;
    const { tables } = data;
    const names = physicalNames(prefix);
    // Both by their fixed names, not by reference: the bucket keeps its wildcard grant in a form whose
    // cdk-nag acknowledgment can be written down (nag-findings.ts); the state machine is created after
    // the functions it calls, and the functions that start it need only its ARN.
    const videoBucket = Bucket.fromBucketName(this, 'VideoBucket', videoBucketName(prefix));
    const stateMachine = StateMachine.fromStateMachineName(this, 'TaskLifecycle', props.stateMachineName);
    const transcoderArn = Stack.of(this).formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: names.transcoderFunction,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });

    // ------------------------------------------------------------ building blocks (service-dependencies.ts)

    /** authenticationDependencies(): key lookup and the per-key limiter. */
    const authentication: FunctionAccess[] = [
      table(TABLES.apiKeys, tables.apiKeys, 'GetItem'),
      table(TABLES.rateLimits, tables.rateLimits, 'UpdateItem'),
      // The default stated here too, so the deployed value is visible in the console.
      config({ [ENV.defaultRateLimitPerSecond.name]: ENV.defaultRateLimitPerSecond.default }),
    ];
    /** taskRepository() needs all its tables' names, whichever of them the function touches. */
    const taskRepository = (
      tasks: DynamoDbAction[],
      accounts: DynamoDbAction[] = [],
      apiKeys: DynamoDbAction[] = [],
      ledger: DynamoDbAction[] = [],
      idempotency: DynamoDbAction[] = [],
    ): FunctionAccess[] => [
      table(TABLES.tasks, tables.tasks, ...tasks),
      table(TABLES.accounts, tables.accounts, ...accounts),
      table(TABLES.apiKeys, tables.apiKeys, ...apiKeys),
      table(TABLES.ledger, tables.ledger, ...ledger),
      table(TABLES.idempotency, tables.idempotency, ...idempotency),
    ];
    /**
     * repository.refund(): one transaction over the task, the account, the key and the ledger entry (the account read
     * when an entry listed later committed first).
     */
    const refunds = taskRepository(['GetItem', 'UpdateItem'], ['GetItem', 'UpdateItem'], ['UpdateItem'], ['PutItem']);
    /**
     * videoUrlSigner(): CloudFront-signed URLs (the private key is read from Secrets Manager, once per
     * cold start). With CLOUDFRONT_DOMAIN set the handlers never sign with S3, so no bucket access.
     */
    const videoUrlSigner: FunctionAccess[] = [
      config({
        [ENV.cloudFrontDomain.name]: delivery.distribution.distributionDomainName,
        [ENV.cloudFrontKeyPairId.name]: delivery.publicKey.publicKeyId,
      }),
      secret(ENV.cloudFrontPrivateKeySecretArn.name, delivery.privateKey),
      // A video the bucket's lifecycle rule deleted gets no URL but when it went (functions/core/video-retention.ts).
      config(
        props.videoRetentionDays === undefined
          ? {}
          : { [ENV.videoRetentionDays.name]: String(props.videoRetentionDays) },
      ),
    ];
    /**
     * waitingRoomDependencies(): upstream accounts and the waiting room (slots are taken and given back in
     * transactions with the task), and the task tokens it answers.
     */
    const capacity: FunctionAccess[] = [
      ...taskRepository(['GetItem', 'UpdateItem']),
      table(TABLES.upstreamAccounts, tables.upstreamAccounts, 'Scan', 'UpdateItem'),
      table(TABLES.upstreamQueue, tables.upstreamQueue, 'PutItem', 'DeleteItem', 'Query'),
      answerTaskTokens(stateMachine),
    ];
    /** videoProviders(): the key only as a secret ARN, read by the function. */
    const upstream: FunctionAccess[] = PROVIDER_NAMES.flatMap((provider) => {
      const env = providerEnv(provider);
      return [
        config({
          [env.platform.name]: props.providerEndpoints[provider].platform,
          [env.baseUrl.name]: props.providerEndpoints[provider].baseUrl,
        }),
        secret(env.apiKeySecretArn.name, data.providerApiKeys[provider]),
      ];
    });

    /** ffmpeg at /opt/ffmpeg (ffmpeg-layer.ts): the npm package's build, or the operator's layer. */
    const ffmpeg = ffmpegLayer(this, props.ffmpegLayer);
    /** The uploads table: uploadRepository() finds it, and its Idempotency-Key records, by these names. */
    const uploads = (...actions: DynamoDbAction[]): FunctionAccess[] => [
      table(TABLES.uploads, tables.uploads, ...actions),
    ];

    /**
     * Every console route's caller (functions/http/console/console-route.ts, consoleUsers()): the JWT's `sub`
     * looked up; a new user gets its link and a new account in one transaction. No API key.
     */
    const consoleCaller: FunctionAccess[] = [
      table(TABLES.consoleUsers, tables.consoleUsers, 'GetItem', 'PutItem'),
      table(TABLES.accounts, tables.accounts, 'PutItem'),
    ];
    /** consoleKeys(): the account's keys by its index; a write checks the account in the same transaction. */
    const consoleKeys = (...apiKeys: DynamoDbAction[]): FunctionAccess[] => [
      queryIndex(TABLES.apiKeys, tables.apiKeys, API_KEYS_BY_ACCOUNT_INDEX.name),
      table(TABLES.apiKeys, tables.apiKeys, ...apiKeys),
      table(TABLES.accounts, tables.accounts, 'ConditionCheckItem'),
    ];

    // ------------------------------------------------------------ what each function uses

    const specs: Record<string, FunctionSpec> = {
      // API routes
      SubmitTask: {
        uses: [
          ...authentication,
          table(TABLES.models, tables.models, 'Scan'),
          // One transaction (with the ledger entry and the Idempotency-Key record, read first when a key is
          // sent); the task's execution starts from the table's stream (StartExecutions).
          ...taskRepository(
            ['PutItem'],
            ['GetItem', 'UpdateItem'],
            ['UpdateItem'],
            ['PutItem'],
            ['GetItem', 'PutItem'],
          ),
          // The uploads a submit names: their records, and a ranged GET of each stored object (its real type and size).
          ...uploads('GetItem'),
          uploadObjects(videoBucket, 'GetObject'),
        ],
      },
      // A query of a running task asks the upstream and may record a move, or a failure with its refund, and
      // wakes the execution; a waiting task's place is counted in the waiting room.
      GetTask: { uses: [...authentication, ...refunds, ...capacity, ...upstream, ...videoUrlSigner] },
      // Cancels the upstream job (up to three calls of CANCEL_UPSTREAM_TIMEOUT_MS), refunds, stops the execution
      // and gives the slot back: given longer than a read, below the HTTP API's 30-s integration limit.
      CancelTask: {
        uses: [
          ...authentication,
          ...refunds,
          taskExecutions(stateMachine, props.stateMachineName, { start: false, executionActions: ['StopExecution'] }),
          ...capacity,
          ...upstream,
        ],
        timeout: Duration.seconds(25),
      },
      // The upstream's job reports: a read of the job (2 s at most), then as GetTask's settle. Ark waits 5 s for
      // the answer; the function may take longer under load (the work is done, Ark only sends the hint again).
      UpstreamCallback: { uses: [...refunds, ...capacity, ...upstream] },
      GetBalance: { uses: [...authentication, table(TABLES.accounts, tables.accounts, 'GetItem')] },
      ListTransactions: {
        uses: [...authentication, queryIndex(TABLES.ledger, tables.ledger, LEDGER_BY_TIME_INDEX.name)],
      },
      ListModels: { uses: [...authentication, table(TABLES.models, tables.models, 'Scan')] },
      // The account's index, and a succeeded task's re-signed video URL stored as GetTask stores it.
      ListTasks: {
        uses: [
          ...authentication,
          ...taskRepository(['UpdateItem']),
          queryIndex(TABLES.tasks, tables.tasks, TASKS_BY_ACCOUNT_INDEX.name),
          ...videoUrlSigner,
        ],
      },
      // No API key, no storage: they answer from the bundle alone.
      Health: { uses: [] },
      GetOpenApi: { uses: [] },
      GetDocs: { uses: [] },
      // Records the upload (with its Idempotency-Key record, read first when a key is sent) and presigns its PUT
      // with the function's own role: the URL can write only what that role may, under uploads/.
      CreateUpload: {
        uses: [
          ...authentication,
          ...uploads('PutItem'),
          table(TABLES.idempotency, tables.idempotency, 'GetItem', 'PutItem'),
          uploadObjects(videoBucket, 'PutObject'),
        ],
      },
      // Answers with the envelope only: touches nothing.
      [DEFAULT_ROUTE.id]: { uses: [] },

      // Console routes (docs/console.md): the JWT authorizer has checked the token; each one finds its caller's account.
      ConsoleGetAccount: {
        uses: [
          ...consoleCaller,
          table(TABLES.accounts, tables.accounts, 'GetItem'),
          queryIndex(TABLES.ledger, tables.ledger, LEDGER_BY_TIME_INDEX.name),
        ],
      },
      ConsoleListTransactions: {
        uses: [...consoleCaller, queryIndex(TABLES.ledger, tables.ledger, LEDGER_BY_TIME_INDEX.name)],
      },
      ConsoleListTasks: {
        uses: [
          ...consoleCaller,
          ...taskRepository(['UpdateItem']),
          queryIndex(TABLES.tasks, tables.tasks, TASKS_BY_ACCOUNT_INDEX.name),
          ...videoUrlSigner,
        ],
      },
      ConsoleGetTask: { uses: [...consoleCaller, ...refunds, ...capacity, ...upstream, ...videoUrlSigner] },
      ConsoleListKeys: { uses: [...consoleCaller, ...consoleKeys()] },
      ConsoleCreateKey: {
        uses: [
          ...consoleCaller,
          ...consoleKeys('PutItem'),
          config({ [ENV.defaultRateLimitPerSecond.name]: ENV.defaultRateLimitPerSecond.default }),
        ],
      },
      ConsoleUpdateKey: { uses: [...consoleCaller, ...consoleKeys('UpdateItem', 'GetItem')] },
      // The account's webhook signing secrets (webhookSecrets(): on the account's item).
      ConsoleGetWebhookSecret: {
        uses: [...consoleCaller, table(TABLES.accounts, tables.accounts, 'GetItem', 'UpdateItem')],
      },
      ConsoleRotateWebhookSecret: {
        uses: [...consoleCaller, table(TABLES.accounts, tables.accounts, 'GetItem', 'UpdateItem')],
      },
      // Signs a test event with the account's secret and POSTs it to the customer's (public) URL.
      ConsoleSendTestWebhook: {
        uses: [...consoleCaller, table(TABLES.accounts, tables.accounts, 'GetItem', 'UpdateItem')],
      },
      // One transaction: the code marked redeemed, the balance raised, the ledger entry written.
      ConsoleRedeemCode: {
        uses: [
          ...consoleCaller,
          table(TABLES.redeemCodes, tables.redeemCodes, 'GetItem', 'UpdateItem'),
          table(TABLES.accounts, tables.accounts, 'GetItem', 'UpdateItem'),
          table(TABLES.ledger, tables.ledger, 'PutItem'),
        ],
      },
      ConsoleListModels: { uses: [...consoleCaller, table(TABLES.models, tables.models, 'Scan')] },

      // State machine steps (each lambda's timeout below its state's TimeoutSeconds in the ASL)
      // Uploads made fetchable for the upstream (CloudFront-signed until the upload's expiry): read, written with
      // their real type, the task updated. An H.265 video is handed to TranscodeUpload, never decoded here.
      PrepareInputs: {
        uses: [
          ...taskRepository(['GetItem', 'UpdateItem']),
          ...uploads('GetItem'),
          uploadObjects(videoBucket, 'GetObject', 'PutObject'),
          ...videoUrlSigner,
          invokeFunction(UPLOAD_TRANSCODER.envVar, names.transcoderFunction, transcoderArn),
        ],
        timeout: PREPARE_INPUTS_TIMEOUT,
      },
      // Decodes untrusted media (docs/security.md, "Untrusted media"): reads an upload, writes its H.264 copy;
      // no table, no secret; the layer's ffmpeg (its architecture) runs with an empty environment.
      [UPLOAD_TRANSCODER.id]: {
        uses: [transcodeUploads(videoBucket), config({ [ENV.ffmpegPath.name]: ENV.ffmpegPath.default })],
        timeout: Duration.seconds(UPLOAD_TRANSCODER.timeoutSeconds),
        memorySize: UPLOAD_TRANSCODER.memorySize,
        architecture: ffmpeg.architecture,
        layers: [ffmpeg.layer],
      },
      WaitForUpstreamSlot: { uses: capacity, timeout: Duration.seconds(50) },
      StartUpstream: {
        uses: [
          ...taskRepository(['GetItem', 'UpdateItem']),
          ...capacity,
          ...upstream,
          config({
            [ENV.completionCheckSeconds.name]: ENV.completionCheckSeconds.default,
            [ENV.completionPollSeconds.name]: ENV.completionPollSeconds.default,
          }),
        ],
        timeout: START_UPSTREAM_TIMEOUT,
      },
      // Registers its token, looks at the job; a job found final is settled (a failed one refunded) here.
      AwaitCompletion: { uses: [...refunds, ...capacity, ...upstream], timeout: Duration.seconds(25) },
      // Gets the video key from AwaitCompletion: no table.
      TransferVideo: {
        uses: [
          writeVideos(videoBucket, VIDEO_KEYS),
          config({
            [ENV.maxVideoBytes.name]: ENV.maxVideoBytes.default,
            [ENV.videoDownloadTimeoutMs.name]: String(VIDEO_DOWNLOAD_TIMEOUT.toMilliseconds()),
          }),
        ],
        timeout: TRANSFER_TIMEOUT,
        // Network throughput grows with memory; the upload itself keeps 2 × 5 MiB parts in flight.
        memorySize: 1024,
      },
      // Queues the completion webhook itself (one message; the state machine's own send was two transitions more).
      CompleteTask: {
        uses: [
          ...taskRepository(['GetItem', 'UpdateItem']),
          ...videoUrlSigner,
          sendWebhookMessages(WEBHOOK_QUEUE.envVar, data.webhookQueue, data.webhookDeadLetterQueue),
        ],
        timeout: Duration.seconds(25),
      },
      FailAndRefund: { uses: [...refunds, ...capacity, ...upstream], timeout: Duration.seconds(25) },

      // Webhook consumer (webhook-dependencies.ts): per-account signing secrets live in the accounts table.
      [WEBHOOK_QUEUE.consumer.id]: {
        uses: [
          ...taskRepository(['GetItem', 'UpdateItem'], ['GetItem', 'UpdateItem']),
          ...videoUrlSigner,
          // Retries and hops are new messages; parked ones go to the dead-letter queue.
          sendWebhookMessages(WEBHOOK_QUEUE.envVar, data.webhookQueue, data.webhookDeadLetterQueue),
        ],
        timeout: Duration.seconds(WEBHOOK_QUEUE.consumer.timeoutSeconds),
      },

      // The tasks table's stream consumer (TASK_STARTS); the event source grants the stream's read.
      [TASK_STARTS.starter.id]: {
        uses: [taskExecutions(stateMachine, props.stateMachineName, { start: true })],
        timeout: Duration.seconds(TASK_STARTS.starter.timeoutSeconds),
      },

      // Scheduled: restarts executions of stuck tasks.
      ReconcileTasks: {
        uses: [
          ...taskRepository(['UpdateItem']),
          queryIndex(TABLES.tasks, tables.tasks, TASKS_IN_FLIGHT_INDEX.name),
          taskExecutions(stateMachine, props.stateMachineName, {
            start: true,
            executionActions: ['DescribeExecution'],
          }),
          // Slots that ended tasks still hold are given back; each waiting room is dispatched.
          ...capacity,
          queryIndex(TABLES.tasks, tables.tasks, TASKS_SLOT_HOLDERS_INDEX.name),
        ],
        timeout: Duration.seconds(50),
      },
      // Scheduled: sends again the webhooks that final tasks still owe, once overdue.
      RequeueWebhooks: {
        uses: [
          table(TABLES.tasks, tables.tasks, 'UpdateItem'),
          queryIndex(TABLES.tasks, tables.tasks, TASKS_WEBHOOK_PENDING_INDEX.name),
          sendWebhookMessages(WEBHOOK_QUEUE.envVar, data.webhookQueue, data.webhookDeadLetterQueue),
          config({ [ENV.webhookRequeueAfterSeconds.name]: ENV.webhookRequeueAfterSeconds.default }),
        ],
        timeout: Duration.seconds(50),
      },
    };

    const make = (fnId: string, entry: string, description: string) => {
      const spec = specs[fnId];
      if (!spec) throw new Error(`lib/cdk/service-functions.ts declares no access for function ${fnId} (${entry})`);
      return new ServiceFunction(scope, `${fnId}Function`, {
        entry,
        functionName: `${prefix}-${fnId}`,
        description,
        uses: spec.uses,
        ...(spec.timeout && { timeout: spec.timeout }),
        ...(spec.memorySize && { memorySize: spec.memorySize }),
        ...(spec.architecture && { architecture: spec.architecture }),
        ...(spec.layers && { layers: spec.layers }),
      });
    };

    this.workflow = WORKFLOW_FUNCTIONS.map((definition) => ({
      definition,
      handler: make(definition.id, definition.entry, `Task lifecycle step ${definition.id}`),
    }));
    this.routes = API_ROUTES.map((route) => ({
      route,
      handler: make(route.id, route.entry, `${route.method} ${route.path}`),
    }));
    this.defaultRoute = make(DEFAULT_ROUTE.id, DEFAULT_ROUTE.entry, 'Any request no route matches ($default)');

    const consumer = WEBHOOK_QUEUE.consumer;
    this.webhookConsumer = make(consumer.id, consumer.entry, 'Delivers completion webhooks from the webhook queue');
    this.webhookConsumer.addEventSource(
      new SqsEventSource(data.webhookQueue, {
        batchSize: consumer.batchSize,
        reportBatchItemFailures: consumer.reportBatchItemFailures,
        // At most this many batches at once, so a burst cannot take all of the account's Lambda concurrency;
        // the poller then stops receiving rather than having its invocations throttled, so no message burns
        // a receive on a throttle ("Configuring scaling behavior for SQS event source mappings", Lambda guide).
        maxConcurrency: consumer.maxConcurrency,
      }),
    );

    const starts = TASK_STARTS;
    this.taskStarter = make(starts.starter.id, starts.starter.entry, "Starts each new task's execution (tasks stream)");
    this.taskStarter.addEventSource(
      new DynamoEventSource(tables.tasks, {
        // TRIM_HORIZON: nothing written before the mapping existed is skipped (a start of a task that has
        // one already is a no-op).
        startingPosition: StartingPosition.TRIM_HORIZON,
        filters: [FilterCriteria.filter(starts.filterPattern)],
        batchSize: starts.batchSize,
        maxBatchingWindow: Duration.seconds(starts.maxBatchingWindowSeconds),
        bisectBatchOnError: true,
        retryAttempts: starts.retryAttempts,
        maxRecordAge: Duration.seconds(starts.maxRecordAgeSeconds),
        reportBatchItemFailures: starts.reportBatchItemFailures,
        onFailure: new SqsDlq(data.taskStartsDeadLetterQueue),
      }),
    );

    this.transcoder = make(
      UPLOAD_TRANSCODER.id,
      UPLOAD_TRANSCODER.entry,
      'Transcodes an uploaded H.265 video (untrusted media)',
    );

    this.scheduled = SCHEDULED_FUNCTIONS.map((definition) => {
      const handler = make(definition.id, definition.entry, `Every ${definition.everyMinutes} min: ${definition.id}`);
      new Rule(scope, `${definition.id}Schedule`, {
        description: `Runs ${prefix}-${definition.id} every ${definition.everyMinutes} minute(s)`,
        schedule: Schedule.rate(Duration.minutes(definition.everyMinutes)),
        targets: [new LambdaFunction(handler, { retryAttempts: 0 })],
      });
      return handler;
    });

    const unused = Object.keys(specs).filter((fnId) => !ALL_FUNCTIONS.some((d) => d.id === fnId));
    if (unused.length > 0)
      throw new Error(`access declared for functions that no definition has: ${unused.join(', ')}`);

    this.byId = Object.fromEntries(
      [
        ...this.workflow.map(({ handler }) => handler),
        ...this.routes.map(({ handler }) => handler),
        this.defaultRoute,
        this.webhookConsumer,
        this.taskStarter,
        this.transcoder,
        ...this.scheduled,
      ].map((handler) => [handler.node.id.replace(/Function$/, ''), handler]),
    );

    // Reserved concurrency (concurrency.ts): their work cannot be starved by the API's functions.
    this.reserved = Object.entries(RESERVED_CONCURRENCY).map(([fnId, count]) => {
      const handler = this.byId[fnId];
      if (!handler) throw new Error(`RESERVED_CONCURRENCY names ${fnId}, which is no function`);
      if (props.reserveConcurrency) (handler.node.defaultChild as CfnFunction).reservedConcurrentExecutions = count;
      return { id: fnId, handler };
    });
  }
}

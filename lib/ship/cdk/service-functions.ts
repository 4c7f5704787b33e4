/**
 * Every Lambda function of the service, made from its declaration in functions/catalog.ts: each access it
 * declares becomes its environment variables and least IAM grants (function-access.ts), each trigger its
 * route, state, schedule or event source.
 */
import { PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import { UPSTREAM_CLAIM_LEASE_MS } from '../../../functions/core/use-cases/upstream-claim.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import { ENV, providerEnv } from '../../../functions/adapters/runtime/config.js';
import { accessesOf, CATALOG, DEFAULT_TIMEOUT_SECONDS, functionById } from '../../../functions/catalog.js';
import type { Access, Trigger } from '../../../functions/catalog.js';
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  physicalNames,
  TABLES,
  TASK_STARTS,
  UPLOAD_TRANSCODER,
  WEBHOOK_QUEUE,
} from '../../../functions/adapters/runtime/resources.js';
import type { RouteDefinition, WorkflowFunctionDefinition } from '../routes.js';
import { API_ROUTES, DEFAULT_ROUTE, SCHEDULED_FUNCTIONS, WORKFLOW_FUNCTIONS } from '../routes.js';
import type { ExternalFfmpegLayer } from './ffmpeg-layer.js';
import { ffmpegLayer } from './ffmpeg-layer.js';
import { LIVE_ALIAS } from './live-rollouts.js';
import { functionRoleName } from './secret-readers.js';
import { RESERVED_CONCURRENCY } from './concurrency.js';
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

/**
 * StartUpstream's claim on a task outlives the function by at least this: a claim past its lease is then
 * never one whose create is still running (docs/task-lifecycle.md, "Claims before upstream creates").
 */
const CLAIM_LEASE_MARGIN_SECONDS = 30;
if (
  ((functionById('StartUpstream').timeoutSeconds ?? 0) + CLAIM_LEASE_MARGIN_SECONDS) * 1000 >
  UPSTREAM_CLAIM_LEASE_MS
) {
  throw new Error('StartUpstream may outlive its claim on the task: raise UPSTREAM_CLAIM_LEASE_MS');
}

/** A setting's default (functions/adapters/runtime/config.ts): a setting with none needs the deployment's value. */
function defaultOf(name: string): string {
  const variables = [
    ...Object.values(ENV),
    ...PROVIDER_NAMES.flatMap((provider) => Object.values(providerEnv(provider))),
  ];
  const fallback = variables.find((variable) => variable.name === name)?.default;
  if (fallback === undefined) throw new Error(`no value for ${name}: give it in lib/ship/cdk/service-functions.ts`);
  return fallback;
}

/** The function's description in the console: what starts it. */
function describe(trigger: Trigger, fnId: string): string {
  if ('http' in trigger) {
    return trigger.http === 'default'
      ? 'Any request no route matches ($default)'
      : `${trigger.http.method} ${trigger.http.path}`;
  }
  if ('state' in trigger) return `Task lifecycle step ${fnId}`;
  if ('everyMinutes' in trigger) return `Every ${trigger.everyMinutes} min: ${fnId}`;
  if ('queue' in trigger) return 'Delivers completion webhooks from the webhook queue';
  if ('invokedBy' in trigger) return `Invoked by ${trigger.invokedBy}: ${fnId}`;
  return "Starts each new task's execution (tasks stream)";
}

export interface ProviderEndpoint {
  platform: string;
  baseUrl: string;
}

export interface ServiceFunctionsProps {
  readonly prefix: string;
  /** Each upstream provider's endpoint. */
  readonly providerEndpoints: Readonly<Record<ProviderName, ProviderEndpoint>>;
  readonly data: StatefulResources;
  readonly delivery: VideoDelivery;
  /** An operator's ffmpeg layer (context `ffmpegLayerArn`); unset: the npm package's build. */
  readonly ffmpegLayer?: ExternalFfmpegLayer;
  /** The state machine's name in this deployment (task-workflow.ts, deployedStateMachineName). */
  readonly stateMachineName: string;
  /** Days the video bucket keeps a finished video (stateful-resources.ts); unset: kept. */
  readonly videoRetentionDays?: number;
  /** Give the functions of RESERVED_CONCURRENCY their reservation (concurrency.ts). */
  readonly reserveConcurrency: boolean;
  /** Top-ups' settings by variable (stack-context.ts): Alipay's app id and key, the bounds. */
  readonly topupSettings?: Readonly<Record<string, string>>;
  /** The API's base URL, where the upstream reports jobs (CALLBACK_BASE_URL; a token resolved at synthesis). */
  readonly callbackBaseUrl: string;
  /**
   * Start executions through the state machine's `live` alias (state-machine-alias.ts): true in AWS; false for
   * `sam local`, which has no aliases.
   */
  readonly liveAliases: boolean;
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

    /** ffmpeg at /opt/ffmpeg (ffmpeg-layer.ts): the npm package's build, or the operator's layer. */
    const ffmpeg = ffmpegLayer(this, props.ffmpegLayer);
    const transfer = functionById('TransferVideo');
    /** The deployment's settings; other settings get their variable's default (functions/adapters/runtime/config.ts). */
    const values: Record<string, string> = {
      [ENV.cloudFrontDomain.name]: delivery.domainName,
      [ENV.cloudFrontKeyPairId.name]: delivery.publicKey.publicKeyId,
      [ENV.callbackBaseUrl.name]: props.callbackBaseUrl,
      ...props.topupSettings,
      ...(props.videoRetentionDays !== undefined && {
        [ENV.videoRetentionDays.name]: String(props.videoRetentionDays),
      }),
      // The download gets the Lambda's time less three minutes, left to finish the multipart upload.
      [ENV.videoDownloadTimeoutMs.name]: String(((transfer.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) - 180) * 1000),
      ...Object.fromEntries(
        PROVIDER_NAMES.flatMap((provider) => {
          const env = providerEnv(provider);
          return [
            [env.platform.name, props.providerEndpoints[provider].platform],
            [env.baseUrl.name, props.providerEndpoints[provider].baseUrl],
          ];
        }),
      ),
    };
    const secrets = {
      cloudFrontPrivateKey: delivery.privateKey,
      alipayAppPrivateKey: data.alipayAppPrivateKey,
      ...data.providerApiKeys,
    };
    /** One access of the catalog as its variables and grants (function-access.ts). */
    const resolve = (access: Access): FunctionAccess => {
      switch (access.kind) {
        case 'table':
          return table(TABLES[access.table], tables[access.table], ...access.actions);
        case 'index':
          return queryIndex(TABLES[access.table], tables[access.table], access.index);
        case 'videos':
          return writeVideos(videoBucket, access.keys, access.delete);
        case 'uploads':
          return uploadObjects(videoBucket, ...access.actions);
        case 'transcodeUploads':
          return transcodeUploads(videoBucket);
        case 'invokeTranscoder':
          return invokeFunction(UPLOAD_TRANSCODER.envVar, names.transcoderFunction, transcoderArn);
        case 'executions':
          return taskExecutions(stateMachine, props.stateMachineName, {
            start: access.start,
            executionActions: access.actions,
            ...(props.liveAliases && { alias: LIVE_ALIAS }),
          });
        case 'webhookQueue':
          return sendWebhookMessages(WEBHOOK_QUEUE.envVar, data.webhookQueue, data.webhookDeadLetterQueue);
        case 'taskTokens':
          return answerTaskTokens(stateMachine);
        case 'config':
          // A setting whose value is empty is not set at all (an empty value means "unset" to its reader).
          return config(
            Object.fromEntries(
              access.variables
                .map((name) => [name, values[name] ?? defaultOf(name)] as const)
                .filter(([, value]) => value !== ''),
            ),
          );
        case 'secret':
          return secret(access.variable, secrets[access.secret]);
        case 'local':
          return config({});
      }
    };

    const byId: Record<string, ServiceFunction> = {};
    for (const declaration of CATALOG) {
      const { id: fnId, entry, trigger, timeoutSeconds, memoryMb } = declaration;
      byId[fnId] = new ServiceFunction(scope, `${fnId}Function`, {
        entry,
        functionName: `${prefix}-${fnId}`,
        roleName: functionRoleName(prefix, fnId),
        description: describe(trigger, fnId),
        uses: accessesOf(declaration).map(resolve),
        ...(timeoutSeconds && { timeout: Duration.seconds(timeoutSeconds) }),
        ...(memoryMb && { memorySize: memoryMb }),
        ...(declaration.ffmpeg && { architecture: ffmpeg.architecture, layers: [ffmpeg.layer] }),
      });
    }
    const handlerOf = (fnId: string) => byId[fnId] as ServiceFunction;
    this.byId = byId;

    this.workflow = WORKFLOW_FUNCTIONS.map((definition) => ({
      definition,
      handler: handlerOf(definition.id),
    }));
    this.routes = API_ROUTES.map((route) => ({
      route,
      handler: handlerOf(route.id),
    }));
    this.defaultRoute = handlerOf(DEFAULT_ROUTE.id);
    this.transcoder = handlerOf(UPLOAD_TRANSCODER.id);

    const consumer = WEBHOOK_QUEUE.consumer;
    this.webhookConsumer = handlerOf(consumer.id);
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
    this.taskStarter = handlerOf(starts.starter.id);
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

    this.scheduled = SCHEDULED_FUNCTIONS.map((definition) => {
      const handler = handlerOf(definition.id);
      new Rule(scope, `${definition.id}Schedule`, {
        description: `Runs ${prefix}-${definition.id} every ${definition.everyMinutes} minute(s)`,
        schedule: Schedule.rate(Duration.minutes(definition.everyMinutes)),
        targets: [new LambdaFunction(handler, { retryAttempts: 0 })],
      });
      return handler;
    });

    // Reserved concurrency (concurrency.ts): their work cannot be starved by the API's functions.
    this.reserved = Object.entries(RESERVED_CONCURRENCY).map(([fnId, count]) => {
      const handler = this.byId[fnId];
      if (!handler) throw new Error(`RESERVED_CONCURRENCY names ${fnId}, which is no function`);
      if (props.reserveConcurrency) (handler.node.defaultChild as CfnFunction).reservedConcurrentExecutions = count;
      return { id: fnId, handler };
    });
  }
}

/**
 * The service as three stacks: `<prefix>-stateful` holds data and identity (tables, bucket and CDN, queues,
 * secrets, the console's user pool; retained, termination-protected, rarely changed); `<prefix>-stateless`
 * only computes (functions, HTTP API, state machine, alarms) and can be replaced any time; `<prefix>-console`
 * serves the customer console (its bucket, distribution and deployment; holds nothing but the build).
 * What each function uses is listed once, in service-functions.ts.
 */
import { PROVIDERS, PROVIDER_NAMES, platformBaseUrl, platformsOf } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import type { App, Environment, StackProps } from 'aws-cdk-lib';
import { CfnOutput, Lazy, Stack, Tags } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import {
  DEFAULT_PREFIX,
  TASK_STARTS,
  UPLOAD_TRANSCODER,
  WEBHOOK_QUEUE,
} from '../../../functions/adapters/runtime/resources.js';
import { CONSOLE_ROUTE_SCOPES, DEFAULT_ROUTE } from '../routes.js';
import type { ApiThrottle } from './api.js';
import { DEFAULT_API_THROTTLE, ServiceApi } from './api.js';
import type { AlarmDestination } from './alarm-destination.js';
import { alarmDestination, ALARMS_CONTEXT } from './alarm-destination.js';
import type { ExternalFfmpegLayer } from './ffmpeg-layer.js';
import { externalFfmpegLayer } from './ffmpeg-layer.js';
import { SetupError } from '../setup-error.js';
import { TABLE_INDEXES_CONTEXT, tableIndexesFromContext } from '../table-indexes.js';
import type { TableIndexes } from '../table-indexes.js';
import {
  apiConcurrency,
  DEFAULT_LAMBDA_CONCURRENCY_QUOTA,
  MIN_UNRESERVED_CONCURRENCY,
  TOTAL_RESERVED,
} from './concurrency.js';
import { routeThrottles } from './route-throttles.js';
import { ServiceAlarms } from './alarms.js';
import { ServiceDashboard } from './dashboard.js';
import { ServiceFunctions } from './service-functions.js';
import type { ProviderEndpoint } from './service-functions.js';
import { ConsoleUsers } from './console-users.js';
import type { ConsoleSiteProps } from './console-site.js';
import { builtConsole, ConsoleSite } from './console-site.js';
import type { VideoStoragePolicy } from './stateful-resources.js';
import { DEFAULT_VIDEO_STORAGE, pascal, StatefulResources } from './stateful-resources.js';
import { SAM_LOCAL_CONTEXT, withSamLocalVariables } from './sam-local.js';
import { deployedStateMachineName, TaskWorkflow } from './task-workflow.js';
import type { SigningKeys } from './video-delivery.js';
import { SIGNING_KEYS_CONTEXT, signingKeysFromContext, VideoDelivery } from './video-delivery.js';

export interface VideoServiceConfig {
  /** Prefix of every stack and physical name (`vgs` unless the `prefix` context says otherwise). */
  readonly prefix: string;
  /**
   * Each upstream provider's platform and endpoint (context `<provider>Platform`, `<provider>BaseUrl`,
   * e.g. `arkPlatform=volcengine`); the endpoint defaults to the platform's.
   */
  readonly providerEndpoints: Readonly<Record<ProviderName, ProviderEndpoint>>;
  /** Where the alarms go (context `alarmsTo`, alarm-destination.ts); unset: not deployable. */
  readonly alarms?: AlarmDestination;
  /** An operator's ffmpeg layer (context `ffmpegLayerArn`, `ffmpegLayerArchitecture`); unset: the npm build. */
  readonly ffmpegLayer?: ExternalFfmpegLayer;
  readonly apiThrottle?: ApiThrottle;
  /**
   * Reserve concurrency for the workflow, webhook and task-start functions (concurrency.ts); context
   * `reserveConcurrency=false` for an account whose Lambda quota is below what that needs (new accounts).
   */
  readonly reserveConcurrency?: boolean;
  /** Finished videos' tiering and retention (context `videoInfrequentAccessDays`, `videoRetentionDays`). */
  readonly videoStorage?: VideoStoragePolicy;
  /** The account's Lambda concurrency quota in the Region (context `lambdaConcurrencyQuota`). */
  readonly lambdaConcurrencyQuota?: number;
  /** The CloudFront signing keys (context `cloudFrontSigningKeys.<prefix>`); unset: not deployable yet. */
  readonly signingKeys?: SigningKeys;
  /** Each table's indexes while `admin upgrade` stages a change (context `tableIndexes`); unset: every index. */
  readonly tableIndexes?: TableIndexes;
  /** Synthesis for `sam local` (context `samLocal=true`): see sam-local.ts. Never deployed. */
  readonly samLocal?: boolean;
  /** Unset: environment-agnostic stacks (synthesis needs no account, no credentials, no lookups). */
  readonly env?: Environment;
}

/**
 * Config from CDK context, with defaults: `-c prefix=dev`, `-c arkPlatform=volcengine`, `-c arkBaseUrl=...`, `-c alarmsTo=ops@...` (alarm-destination.ts), `-c ffmpegLayerArn=...`,
 * `-c apiThrottleRate=5000 -c apiThrottleBurst=5000`, `-c samLocal=true` (sam-local.ts), `-c tableIndexes=…` (an
 * upgrade's staged deploy, lib/ship/table-indexes.ts), and the signing keys
 * (`cloudFrontSigningKeys`, video-delivery.ts). What a deployment needs on every deploy belongs in cdk.json's
 * context, which CDK reads on every run: a value given only with `-c` is gone on the next plain deploy.
 */
export function configFromContext(scope: Construct): VideoServiceConfig {
  const text = (key: string): string | undefined => {
    const value: unknown = scope.node.tryGetContext(key);
    if (typeof value === 'number') return String(value);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const positive = (key: string, fallback: number): number => {
    const value = Number(text(key) ?? fallback);
    if (!Number.isInteger(value) || value <= 0) throw new SetupError(`context ${key} must be a positive integer`);
    return value;
  };
  const alarms = alarmDestination(text(ALARMS_CONTEXT), text('alarmEmail'));
  const ffmpegLayer = externalFfmpegLayer(text('ffmpegLayerArn'), text('ffmpegLayerArchitecture'));
  const rate = positive('apiThrottleRate', DEFAULT_API_THROTTLE.rateLimit);
  const burst = positive('apiThrottleBurst', DEFAULT_API_THROTTLE.burstLimit);
  const prefix = text('prefix') ?? DEFAULT_PREFIX;
  const quota = positive('lambdaConcurrencyQuota', DEFAULT_LAMBDA_CONCURRENCY_QUOTA);
  const reserve = text('reserveConcurrency') ?? String(scope.node.tryGetContext('reserveConcurrency') ?? 'true');
  if (reserve !== 'true' && reserve !== 'false')
    throw new SetupError('context reserveConcurrency must be true or false');
  if (reserve === 'true' && quota - TOTAL_RESERVED < MIN_UNRESERVED_CONCURRENCY) {
    throw new SetupError(
      `context lambdaConcurrencyQuota ${quota} leaves less than ${MIN_UNRESERVED_CONCURRENCY} unreserved after the ` +
        `${TOTAL_RESERVED} the workflow reserves: ask AWS for a higher quota, or set reserveConcurrency=false (docs/capacity.md)`,
    );
  }
  const staged: unknown = scope.node.tryGetContext(TABLE_INDEXES_CONTEXT);
  const signingKeys = signingKeysFromContext(scope.node.tryGetContext(SIGNING_KEYS_CONTEXT), prefix);
  return {
    prefix,
    providerEndpoints: Object.fromEntries(
      PROVIDER_NAMES.map((name) => {
        const platform = text(`${name}Platform`) ?? PROVIDERS[name].defaultPlatform;
        if (!platformsOf(name).includes(platform)) {
          throw new SetupError(`context ${name}Platform must be one of ${platformsOf(name).join(', ')}`);
        }
        return [name, { platform, baseUrl: text(`${name}BaseUrl`) ?? platformBaseUrl(name, platform) }];
      }),
    ) as Record<ProviderName, ProviderEndpoint>,
    ...(alarms && { alarms }),
    ...(ffmpegLayer && { ffmpegLayer }),
    reserveConcurrency: reserve === 'true',
    videoStorage: videoStorageFromContext(text('videoInfrequentAccessDays'), text('videoRetentionDays')),
    lambdaConcurrencyQuota: quota,
    apiThrottle: { rateLimit: rate, burstLimit: burst },
    ...(signingKeys && { signingKeys }),
    samLocal: String(scope.node.tryGetContext(SAM_LOCAL_CONTEXT)) === 'true',
    ...(staged !== undefined && { tableIndexes: tableIndexesFromContext(staged) }),
  };
}

/**
 * Adds the stacks of the service to `app`. The console's site is built at synthesis (console-site.ts)
 * unless `consoleSite` gives it (tests).
 */
export function addVideoService(
  app: App,
  serviceConfig: VideoServiceConfig,
  options: { readonly consoleSite?: ConsoleSiteProps['site'] } = {},
) {
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(serviceConfig.prefix)) {
    throw new SetupError(`prefix "${serviceConfig.prefix}" must be lowercase letters, digits and dashes (at most 20)`);
  }
  const stateful = new StatefulStack(app, `${serviceConfig.prefix}-stateful`, {
    serviceConfig,
    env: serviceConfig.env,
    description: 'Video generation service: data (tables, video bucket and CDN, queues, secrets).',
    terminationProtection: true,
  });
  const stateless = new StatelessStack(app, `${serviceConfig.prefix}-stateless`, {
    serviceConfig,
    stateful,
    env: serviceConfig.env,
    description: 'Video generation service: functions, HTTP API, task state machine, schedules, alarms.',
  });
  const consoleStack = new ConsoleStack(app, `${serviceConfig.prefix}-console`, {
    serviceConfig,
    stateful,
    stateless,
    site: options.consoleSite ?? builtConsole(),
    env: serviceConfig.env,
    description: 'Video generation service: customer console (web app bucket, CloudFront, /api/* to the HTTP API).',
  });
  Tags.of(app).add('service', 'video-generation');
  Tags.of(app).add('deployment', serviceConfig.prefix);
  return { stateful, stateless, console: consoleStack };
}

export interface StatefulStackProps extends StackProps {
  readonly serviceConfig: VideoServiceConfig;
}

export class StatefulStack extends Stack {
  readonly data: StatefulResources;
  readonly delivery: VideoDelivery;
  readonly consoleUsers: ConsoleUsers;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { prefix } = props.serviceConfig;
    this.data = new StatefulResources(this, 'Data', {
      prefix,
      ...(props.serviceConfig.videoStorage && { videoStorage: props.serviceConfig.videoStorage }),
      ...(props.serviceConfig.tableIndexes && { tableIndexes: props.serviceConfig.tableIndexes }),
    });
    this.delivery = new VideoDelivery(this, 'VideoDelivery', {
      prefix,
      videoBucket: this.data.videoBucket,
      logBucket: this.data.accessLogsBucket,
      signingKeys: props.serviceConfig.signingKeys,
    });
    this.consoleUsers = new ConsoleUsers(this, 'ConsoleUsers', { prefix });
    new CfnOutput(this, 'VideoDomain', { value: this.delivery.distribution.distributionDomainName });
    new CfnOutput(this, 'CloudFrontKeyPairId', { value: this.delivery.publicKey.publicKeyId });
    for (const [provider, key] of Object.entries(this.data.providerApiKeys)) {
      new CfnOutput(this, `${pascal(provider)}ApiKeySecretArn`, { value: key.secretArn });
    }
    // The active key's (each key's: SigningKey<id>PrivateKeySecretArn, video-delivery.ts).
    new CfnOutput(this, 'CloudFrontPrivateKeySecretArn', { value: this.delivery.privateKey.secretArn });
    // The console's sign-in: what `admin account:invite` and config.json need.
    new CfnOutput(this, 'ConsoleUserPoolId', { value: this.consoleUsers.userPool.userPoolId });
    new CfnOutput(this, 'ConsoleUserPoolClientId', { value: this.consoleUsers.client.userPoolClientId });
    new CfnOutput(this, 'ConsoleRegion', { value: this.region });
  }
}

export interface StatelessStackProps extends StackProps {
  readonly serviceConfig: VideoServiceConfig;
  readonly stateful: StatefulStack;
}

export class StatelessStack extends Stack {
  readonly functions: ServiceFunctions;
  readonly api: ServiceApi;
  readonly workflow: TaskWorkflow;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  private readonly samLocal: boolean;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    this.samLocal = props.serviceConfig.samLocal === true;
    const { prefix, providerEndpoints } = props.serviceConfig;
    const { data, delivery, consoleUsers } = props.stateful;
    this.addStackDependency(props.stateful, 'functions use its tables, bucket, queues, secrets and CDN');

    const stateMachineName = deployedStateMachineName(prefix);
    this.functions = new ServiceFunctions(this, 'Functions', {
      prefix,
      stateMachineName,
      providerEndpoints,
      data,
      delivery,
      ...(props.serviceConfig.ffmpegLayer && { ffmpegLayer: props.serviceConfig.ffmpegLayer }),
      reserveConcurrency: props.serviceConfig.reserveConcurrency !== false,
      // The upstream reports each job's status changes to our API (docs/task-lifecycle.md, "Completion"): StartUpstream
      // puts the URL in each create. The API does not depend on StartUpstream, so this makes no cycle.
      callbackBaseUrl: Lazy.string({ produce: () => this.api.httpApi.apiEndpoint }),
      ...(props.serviceConfig.videoStorage?.expireAfterDays !== undefined && {
        videoRetentionDays: props.serviceConfig.videoStorage.expireAfterDays,
      }),
    });
    this.workflow = new TaskWorkflow(this, 'TaskWorkflow', {
      stateMachineName,
      functions: this.functions.workflow,
      webhookQueue: data.webhookQueue,
    });
    this.api = new ServiceApi(this, 'Api', {
      prefix,
      routes: this.functions.routes,
      defaultHandler: this.functions.defaultRoute,
      jwt: {
        issuer: consoleUsers.issuer,
        audience: [consoleUsers.client.userPoolClientId],
        scopes: CONSOLE_ROUTE_SCOPES,
      },
      ...(props.serviceConfig.apiThrottle && { throttle: props.serviceConfig.apiThrottle }),
      routeThrottles: routeThrottles(
        apiConcurrency(props.serviceConfig.lambdaConcurrencyQuota ?? DEFAULT_LAMBDA_CONCURRENCY_QUOTA),
      ),
    });

    const functions = this.functions;
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      prefix,
      deadLetterQueues: [
        { name: 'WebhookDlq', queue: data.webhookDeadLetterQueue },
        { name: 'TaskStartsDlq', queue: data.taskStartsDeadLetterQueue },
      ],
      webhookQueue: data.webhookQueue,
      stateMachine: this.workflow.stateMachine,
      httpApi: this.api.httpApi,
      streamConsumers: [{ id: TASK_STARTS.starter.id, handler: functions.taskStarter }],
      crashOnlyFunctions: [
        ...functions.routes.map(({ route, handler }) => ({ id: route.id, handler })),
        { id: DEFAULT_ROUTE.id, handler: functions.defaultRoute },
        { id: WEBHOOK_QUEUE.consumer.id, handler: functions.webhookConsumer },
        { id: TASK_STARTS.starter.id, handler: functions.taskStarter },
        { id: UPLOAD_TRANSCODER.id, handler: functions.transcoder },
        ...functions.scheduled.map((handler) => ({ id: handler.node.id.replace(/Function$/, ''), handler })),
      ],
      workflowFunctions: functions.workflow.map(({ definition, handler }) => ({
        id: definition.id,
        handler,
        designedErrorsMetric: definition.designedErrorsMetric,
      })),
      destination: props.serviceConfig.alarms,
      reservedFunctions: props.serviceConfig.reserveConcurrency === false ? [] : functions.reserved,
      tables: Object.entries(data.tables).map(([tableId, table]) => ({ id: tableId, table })),
    });

    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      prefix,
      alarms: this.alarms.alarms,
      webhookQueue: data.webhookQueue,
      webhookDeadLetterQueue: data.webhookDeadLetterQueue,
      stateMachine: this.workflow.stateMachine,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint });
    new CfnOutput(this, 'StateMachineArn', { value: this.workflow.stateMachine.stateMachineArn });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
  }

  /** The rendered template, where what each function already declares is known (sam-local.ts). */
  protected override _toCloudFormation(): Record<string, unknown> {
    const template = super._toCloudFormation() as Record<string, unknown>;
    return this.samLocal ? withSamLocalVariables(template) : template;
  }
}

export interface ConsoleStackProps extends StackProps {
  readonly serviceConfig: VideoServiceConfig;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
  readonly site: ConsoleSiteProps['site'];
}

/** The customer console's hosting: replaceable like the stateless stack (its bucket holds only the build). */
export class ConsoleStack extends Stack {
  readonly site: ConsoleSite;

  constructor(scope: Construct, id: string, props: ConsoleStackProps) {
    super(scope, id, props);
    this.addStackDependency(
      props.stateful,
      'config.json names its user pool and client; CloudFront logs to its bucket',
    );
    this.addStackDependency(props.stateless, '/api/* goes to its HTTP API');
    const { consoleUsers, data } = props.stateful;
    this.site = new ConsoleSite(this, 'Site', {
      prefix: props.serviceConfig.prefix,
      site: props.site,
      httpApi: props.stateless.api.httpApi,
      userPool: consoleUsers.userPool,
      client: consoleUsers.client,
      logBucket: data.accessLogsBucket,
    });
    new CfnOutput(this, 'ConsoleUrl', { value: this.site.url });
  }
}

/**
 * `videoInfrequentAccessDays` (default 30, `none`: stay in Standard; S3 needs at least 30) and
 * `videoRetentionDays` (default `none`: kept; otherwise after the move to Standard-IA, S3 bills IA for 30 days).
 */
export function videoStorageFromContext(ia: string | undefined, retention: string | undefined): VideoStoragePolicy {
  const days = (key: string, value: string | undefined, fallback: number | undefined, min: number) => {
    if (value === undefined) return fallback;
    if (value === 'none') return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new SetupError(`context ${key} must be "none" or a whole number of days, at least ${min}`);
    }
    return n;
  };
  const infrequentAccessAfterDays = days(
    'videoInfrequentAccessDays',
    ia,
    DEFAULT_VIDEO_STORAGE.infrequentAccessAfterDays,
    30,
  );
  const expireAfterDays = days('videoRetentionDays', retention, undefined, 1);
  if (
    infrequentAccessAfterDays !== undefined &&
    expireAfterDays !== undefined &&
    expireAfterDays <= infrequentAccessAfterDays
  ) {
    throw new SetupError(
      'context videoRetentionDays must be more than videoInfrequentAccessDays (or set that to "none")',
    );
  }
  return {
    ...(infrequentAccessAfterDays !== undefined && { infrequentAccessAfterDays }),
    ...(expireAfterDays !== undefined && { expireAfterDays }),
  };
}

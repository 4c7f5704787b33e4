/**
 * `<prefix>-stateless`: what only computes (functions, HTTP API, task state machine, schedules, alarms,
 * dashboard); it holds no data, so it can be replaced any time. What each function uses is listed once, in
 * service-functions.ts.
 */
import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Lazy, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { TASK_STARTS, UPLOAD_TRANSCODER, WEBHOOK_QUEUE } from '../../../functions/adapters/runtime/resources.js';
import { CONSOLE_ROUTE_SCOPES, DEFAULT_ROUTE } from '../routes.js';
import { ServiceApi } from './api.js';
import { apiConcurrency, DEFAULT_LAMBDA_CONCURRENCY_QUOTA } from './concurrency.js';
import { routeThrottles } from './route-throttles.js';
import { ServiceAlarms } from './alarms.js';
import { ServiceDashboard } from './dashboard.js';
import { ServiceFunctions } from './service-functions.js';
import { withSamLocalVariables } from './sam-local.js';
import type { VideoServiceConfig } from './stack-context.js';
import type { StatefulStack } from './stateful-stack.js';
import { deployedStateMachineName, TaskWorkflow } from './task-workflow.js';

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
      ...(props.serviceConfig.topupSettings && { topupSettings: props.serviceConfig.topupSettings }),
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

/**
 * `<prefix>-stateless`: what only computes (functions, HTTP API, task state machine, schedules, alarms,
 * dashboard); it holds no data, so it can be replaced any time. What each function uses is listed once, in
 * service-functions.ts.
 */
import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Lazy, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { TASK_STARTS, UPLOAD_TRANSCODER, WEBHOOK_QUEUE } from '../../../functions/adapters/runtime/resources.js';
import { CONSOLE_ROUTE_SCOPES, DEFAULT_ROUTE } from '../routes.js';
import { ServiceApi } from './api.js';
import { apiConcurrency, DEFAULT_LAMBDA_CONCURRENCY_QUOTA } from './concurrency.js';
import { routeThrottles } from './route-throttles.js';
import { alarmName, rollbackAlarmIds, ServiceAlarms } from './alarms.js';
import { LiveRollouts } from './live-rollouts.js';
import { StateMachineLiveAlias } from './state-machine-alias.js';
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
  /** The `live` aliases and their CodeDeploy groups (a nested stack); none for `sam local`. */
  readonly rollouts: LiveRollouts | undefined;
  readonly stateMachineAlias: StateMachineLiveAlias | undefined;
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
      // With domains, `https://api.<apex>`: it outlives this stack, so a job created before a redeploy still reports.
      callbackBaseUrl: props.serviceConfig.domains
        ? `https://${props.serviceConfig.domains.api}`
        : Lazy.string({ produce: () => this.api.httpApi.apiEndpoint }),
      liveAliases: !this.samLocal,
      ...(props.serviceConfig.videoStorage?.expireAfterDays !== undefined && {
        videoRetentionDays: props.serviceConfig.videoStorage.expireAfterDays,
      }),
    });
    // In AWS, routes and the state machine call each function's `live` alias (live-rollouts.ts); `sam local`
    // cannot resolve an alias, and the local stack calls the handlers in-process.
    const rolled = [
      ...this.functions.routes.map(({ route, handler }) => ({ id: route.id, handler, kind: 'route' as const })),
      { id: DEFAULT_ROUTE.id, handler: this.functions.defaultRoute, kind: 'route' as const },
      ...this.functions.workflow.map(({ definition, handler }) => ({
        id: definition.id,
        handler,
        kind: 'workflow' as const,
      })),
    ];
    this.rollouts = this.samLocal
      ? undefined
      : new LiveRollouts(this, 'Rollouts', {
          prefix,
          functions: rolled.map(({ id: fnId, handler, kind }) => ({
            id: fnId,
            handler,
            alarms: rollbackAlarmIds(fnId, kind).map((alarmId) => alarmName(prefix, alarmId)),
          })),
        });
    const target = (fnId: string, handler: IFunction): IFunction => this.rollouts?.targets[fnId] ?? handler;
    this.workflow = new TaskWorkflow(this, 'TaskWorkflow', {
      stateMachineName,
      functions: this.functions.workflow.map(({ definition, handler }) => ({
        definition,
        handler: target(definition.id, handler),
      })),
      webhookQueue: data.webhookQueue,
    });
    this.api = new ServiceApi(this, 'Api', {
      prefix,
      routes: this.functions.routes.map(({ route, handler }) => ({ route, handler: target(route.id, handler) })),
      defaultHandler: target(DEFAULT_ROUTE.id, this.functions.defaultRoute),
      jwt: {
        issuer: consoleUsers.issuer,
        audience: [consoleUsers.client.userPoolClientId],
        scopes: CONSOLE_ROUTE_SCOPES,
      },
      ...(props.serviceConfig.apiThrottle && { throttle: props.serviceConfig.apiThrottle }),
      ...(props.stateful.domains && { domainName: props.stateful.domains.apiOriginDomain }),
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
      ticketDestination: props.serviceConfig.tickets,
      reservedFunctions: props.serviceConfig.reserveConcurrency === false ? [] : functions.reserved,
      tables: Object.entries(data.tables).map(([tableId, table]) => ({ id: tableId, table })),
    });

    // Every alarm a rollout names exists (they are named, not referenced, across the nested stack).
    for (const { id: fnId, kind } of rolled) {
      for (const alarmId of rollbackAlarmIds(fnId, kind)) {
        if (!this.alarms.byId.has(alarmId))
          throw new Error(`${fnId}'s rollout names ${alarmId}, which alarms.ts does not make`);
      }
    }
    if (!this.samLocal) {
      this.stateMachineAlias = new StateMachineLiveAlias(this, 'TaskLifecycleLive', {
        stateMachine: this.workflow.stateMachine,
        alarms: [
          this.alarms.byId.get('ExecutionsFailedAlarm'),
          ...this.functions.workflow.map(({ definition }) => this.alarms.byId.get(`${definition.id}ErrorsAlarm`)),
        ].filter((alarm) => alarm !== undefined),
      });
    }

    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      prefix,
      alarms: this.alarms.alarms,
      webhookQueue: data.webhookQueue,
      webhookDeadLetterQueue: data.webhookDeadLetterQueue,
      stateMachine: this.workflow.stateMachine,
    });

    new CfnOutput(this, 'ApiUrl', {
      value: props.serviceConfig.domains ? `https://${props.serviceConfig.domains.api}` : this.api.httpApi.apiEndpoint,
    });
    new CfnOutput(this, 'StateMachineArn', { value: this.workflow.stateMachine.stateMachineArn });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'TicketTopicArn', { value: this.alarms.ticketTopic.topicArn });
  }

  /** The rendered template, where what each function already declares is known (sam-local.ts). */
  protected override _toCloudFormation(): Record<string, unknown> {
    const template = super._toCloudFormation() as Record<string, unknown>;
    return this.samLocal ? withSamLocalVariables(template) : template;
  }
}

/**
 * The alarms that need a human, sent where the deployment says (alarm-destination.ts): webhook messages
 * parked or piling up, failed or timed-out executions, 5xx and upstream error rates, an upstream refusing
 * our key, orphaned or adopted jobs, Lambda errors and throttles, DynamoDB throttling, refunds above a rate.
 * What each means and what to do: docs/runbook.md.
 */
import { CfnOutput, CfnParameter, Duration, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { AlarmProps, IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRIC, PROVIDER_DIMENSION } from '../../../functions/core/metric-names.js';
import { PROVIDERS, PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import { WEBHOOK_QUEUE } from '../../../functions/adapters/runtime/resources.js';
import type { AlarmDestination } from './alarm-destination.js';
import { ALARMS_FIX, describeAlarmDestination, MISSING_ALARMS_PARAMETER } from './alarm-destination.js';
import { serviceMetric, SERVICE_METRIC_PERIOD } from './service-metric.js';
import { pascal } from './stateful-resources.js';

const PERIOD = SERVICE_METRIC_PERIOD;
/** Percentage of API requests answered 5xx that alarms (once there are enough requests to judge). */
export const API_5XX_RATE_PERCENT = 5;
/** Percentage of upstream calls (any provider) that may fail in 5 minutes before it alarms. */
export const UPSTREAM_ERROR_RATE_PERCENT = 20;
/**
 * Age of the oldest record a stream consumer has not processed that alarms: new tasks waiting this long to
 * start. The reconciler starts a pending task after 2 minutes whatever the stream does.
 */
export const ITERATOR_AGE_ALARM_SECONDS = 60;
/** Percentage of a workflow function's invocations that may fail before it alarms. */
export const WORKFLOW_ERROR_RATE_PERCENT = 20;
/** Percentage of submitted tasks refunded in 15 minutes that alarms (with at least 10 submits). */
export const REFUND_RATE_ALARM_PERCENT = 25;
/** Period of the refund-rate alarm: long enough that a few slow failures do not swing it. */
const REFUND_PERIOD = Duration.minutes(15);
/**
 * Webhook messages in flight that alarm: twice what the consumer's event source holds at most (its
 * MaximumConcurrency × batch size). Retries wait as delayed messages, not in flight, so more than this
 * means messages held by something else (a consumer failing on many) long before SQS's in-flight quota
 * of about 120,000 would stall every customer's webhooks.
 */
export const WEBHOOK_IN_FLIGHT_ALARM_MESSAGES =
  2 * WEBHOOK_QUEUE.consumer.maxConcurrency * WEBHOOK_QUEUE.consumer.batchSize;

/** An alarm's name (`<prefix>-<id less "Alarm">`): fixed, so the rollouts can name it (live-rollouts.ts). */
export function alarmName(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/Alarm$/, '')}`;
}
/** The ids of the alarms that roll back a function's rollout: its own errors, and the service's answers. */
export function rollbackAlarmIds(fnId: string, kind: 'route' | 'workflow'): string[] {
  return [`${fnId}ErrorsAlarm`, kind === 'route' ? 'Api5xxRateAlarm' : 'ExecutionsFailedAlarm'];
}

export interface ServiceAlarmsProps {
  readonly prefix: string;
  readonly deadLetterQueues: readonly { readonly name: string; readonly queue: IQueue }[];
  /** The webhook queue: its in-flight depth alarms (WEBHOOK_IN_FLIGHT_ALARM_MESSAGES). */
  readonly webhookQueue: IQueue;
  readonly stateMachine: IStateMachine;
  readonly httpApi: IHttpApi;
  /**
   * Functions that turn every handled error into an answer (API functions: the envelope; the webhook
   * consumer: batch item failures; the reconciler), so any Lambda error there is a crash, a timeout or a
   * failed cold start: one is enough to alarm.
   */
  readonly crashOnlyFunctions: readonly { readonly id: string; readonly handler: IFunction }[];
  /**
   * Workflow functions throw on purpose (the state machine's Retry/Catch match error names), so they
   * alarm on their error rate instead, less the errors a function counts as designed (a service metric).
   */
  readonly workflowFunctions: readonly {
    readonly id: string;
    readonly handler: IFunction;
    readonly designedErrorsMetric?: string | undefined;
  }[];
  /**
   * Functions fed by a DynamoDB stream: they alarm when the stream's oldest unprocessed record is older
   * than ITERATOR_AGE_ALARM_SECONDS (new tasks waiting to start).
   */
  readonly streamConsumers: readonly { readonly id: string; readonly handler: IFunction }[];
  /**
   * Functions with reserved concurrency (the workflow's steps, the webhook consumer, the task starter): a
   * throttle there delays a task or a webhook, so one alarms.
   */
  readonly reservedFunctions: readonly { readonly id: string; readonly handler: IFunction }[];
  /** Every table: read or write throttle events alarm. */
  readonly tables: readonly { readonly id: string; readonly table: ITable }[];
  /** Where the paging alarms go; undefined: a parameter no value satisfies stops the deploy. */
  readonly destination: AlarmDestination | undefined;
  /**
   * Where the ticket alarms and every recovery go (context `ticketsTo`): the `<prefix>-tickets` topic; unset:
   * the paging destination, as before the split.
   */
  readonly ticketDestination?: AlarmDestination | undefined;
}

/**
 * The alarms that page: a customer is failed or money is at stake now. Every other alarm opens a ticket (a look
 * within the working day), and no recovery pages (docs/runbook.md, "Severity").
 */
export function pages(id: string): boolean {
  return (
    [
      'WebhookDlqDepthAlarm',
      'TaskStartsDlqDepthAlarm',
      'ExecutionsFailedAlarm',
      'ExecutionsTimedOutAlarm',
      'Api5xxRateAlarm',
      'UpstreamJobsOrphanedAlarm',
      'RefundRateAlarm',
      'LambdaThrottlesAlarm',
    ].includes(id) ||
    id.endsWith('UpstreamOperatorAlarm') ||
    id.endsWith('IteratorAgeAlarm')
  );
}

export class ServiceAlarms extends Construct {
  readonly topic: ITopic;
  /** Ticket alarms and recoveries: `<prefix>-tickets`, or the paging topic when no `ticketsTo` is set. */
  readonly ticketTopic: ITopic;
  readonly alarms: Alarm[] = [];
  /** Every alarm by construct id (`ExecutionsFailedAlarm`, `<function id>ErrorsAlarm`, …). */
  readonly byId = new Map<string, Alarm>();
  private readonly action: IAlarmAction;
  private readonly ticketAction: IAlarmAction;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ServiceAlarmsProps,
  ) {
    super(scope, id);
    const destination = props.destination;
    // No destination: the topic's display name is a parameter no value satisfies, so the deploy is refused.
    const missing =
      destination === undefined
        ? new CfnParameter(Stack.of(this), MISSING_ALARMS_PARAMETER, {
            type: 'String',
            description: `No alarm destination is configured: ${ALARMS_FIX}. No value is accepted here.`,
            minLength: 1,
            allowedPattern: '^$',
            constraintDescription: ALARMS_FIX,
          })
        : undefined;
    if (destination?.kind === 'topic') {
      this.topic = Topic.fromTopicArn(this, 'Topic', destination.arn);
    } else {
      const topic = new Topic(this, 'Topic', {
        topicName: `${props.prefix}-alarms`,
        enforceSSL: true,
        ...(missing && { displayName: missing.valueAsString }),
      });
      if (destination?.kind === 'email') topic.addSubscription(new EmailSubscription(destination.address));
      this.topic = topic;
    }
    // Printed by `cdk deploy` with the other outputs: the opt-out is said on every deploy.
    new CfnOutput(Stack.of(this), 'AlarmsGoTo', { value: describeAlarmDestination(destination) });
    this.action = new SnsAction(this.topic);
    const tickets = props.ticketDestination;
    if (tickets === undefined) this.ticketTopic = this.topic;
    else if (tickets.kind === 'topic') this.ticketTopic = Topic.fromTopicArn(this, 'TicketTopic', tickets.arn);
    else {
      const topic = new Topic(this, 'TicketTopic', { topicName: `${props.prefix}-tickets`, enforceSSL: true });
      if (tickets.kind === 'email') topic.addSubscription(new EmailSubscription(tickets.address));
      this.ticketTopic = topic;
    }
    this.ticketAction = new SnsAction(this.ticketTopic);

    for (const { name, queue } of props.deadLetterQueues) {
      this.add(`${name}DepthAlarm`, {
        alarmDescription: `Messages are waiting in the ${name} dead-letter queue: they failed every delivery attempt.`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }

    this.add('WebhookInFlightAlarm', {
      alarmDescription:
        `More than ${WEBHOOK_IN_FLIGHT_ALARM_MESSAGES} webhook messages in flight: received and not deleted, ` +
        'they count toward the queue’s in-flight quota (about 120,000), which stalls every webhook when reached.',
      metric: props.webhookQueue.metricApproximateNumberOfMessagesNotVisible({ period: PERIOD, statistic: 'Maximum' }),
      threshold: WEBHOOK_IN_FLIGHT_ALARM_MESSAGES,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    this.add('ExecutionsFailedAlarm', {
      alarmDescription: 'Task lifecycle executions failed (e.g. RefundFailed: a refund kept failing).',
      metric: props.stateMachine.metricFailed({ period: PERIOD, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('ExecutionsTimedOutAlarm', {
      alarmDescription: 'Task lifecycle executions timed out.',
      metric: props.stateMachine.metricTimedOut({ period: PERIOD, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    this.add('Api5xxRateAlarm', {
      alarmDescription: `More than ${API_5XX_RATE_PERCENT}% of API requests answered 5xx (with at least 10 requests).`,
      metric: new MathExpression({
        label: '5xx %',
        expression: 'IF(requests >= 10, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: props.httpApi.metricServerError({ period: PERIOD, statistic: 'Sum' }),
          requests: props.httpApi.metricCount({ period: PERIOD, statistic: 'Sum' }),
        },
        period: PERIOD,
      }),
      threshold: API_5XX_RATE_PERCENT,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    for (const provider of PROVIDER_NAMES) {
      const providerMetric = (metricName: string) => serviceMetric(metricName, { [PROVIDER_DIMENSION]: provider });
      const name = pascal(provider);
      this.add(`${name}UpstreamErrorRateAlarm`, {
        alarmDescription: `More than ${UPSTREAM_ERROR_RATE_PERCENT}% of calls to the upstream ${PROVIDERS[provider].label} failed (with at least 10 calls).`,
        metric: new MathExpression({
          label: `${provider} upstream error %`,
          expression: 'IF(requests >= 10, 100 * errors / requests, 0)',
          usingMetrics: {
            errors: providerMetric(METRIC.upstreamErrors),
            requests: providerMetric(METRIC.upstreamRequests),
          },
          period: PERIOD,
        }),
        threshold: UPSTREAM_ERROR_RATE_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
      // One is enough: no retry fixes these, and tasks wait (key, account) or fail (model) until someone acts.
      this.add(`${name}UpstreamOperatorAlarm`, {
        alarmDescription:
          `The upstream ${PROVIDERS[provider].label} refused our API key or account (401, 403: e.g. a bad key, an ` +
          'overdue bill), so tasks wait to start until it is fixed or their deadline fails them, or it does not ' +
          'offer a model of the catalog (404: unknown or not enabled), whose tasks fail and are refunded.',
        metric: providerMetric(METRIC.upstreamOperatorErrors),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }

    // Either means money may go to the upstream for a video nobody collects: one is enough.
    this.add('UpstreamJobsOrphanedAlarm', {
      alarmDescription:
        'An upstream job was made for a task that had ended, or could not be told apart from another task’s: ' +
        'it may be billed for a video nobody collects (the logs name the task and the job).',
      metric: serviceMetric(METRIC.upstreamJobsOrphaned),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('UpstreamJobsAdoptedAlarm', {
      alarmDescription:
        'A start of a task died or lost the upstream’s answer after creating its job; the job was found ' +
        'upstream and kept (no second job). Recovered, but a crash or a timeout of StartUpstream to look into.',
      metric: serviceMetric(METRIC.upstreamJobsAdopted),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    // A payment report that credited nothing: a forged or misrouted notification, or a customer's money not
    // credited (another amount, our app id or key misconfigured). One is enough to look.
    this.add('TopupNoticesRefusedAlarm', {
      alarmDescription:
        'A payment report (Alipay notification or query) credited nothing: a bad signature, another app, an unknown ' +
        'order or another amount. The log line says which; a paid order stays pending until resolved (topup:query).',
      metric: serviceMetric(METRIC.topupNoticesRefused),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    for (const { id: fnId, handler } of props.crashOnlyFunctions) {
      this.add(`${fnId}ErrorsAlarm`, {
        alarmDescription: `${fnId} crashed, timed out or failed to start.`,
        metric: handler.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }
    for (const { id: fnId, handler } of props.streamConsumers) {
      this.add(`${fnId}IteratorAgeAlarm`, {
        alarmDescription: `${fnId} is more than ${ITERATOR_AGE_ALARM_SECONDS} s behind its stream: new tasks wait to start.`,
        metric: handler.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: ITERATOR_AGE_ALARM_SECONDS * 1000,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
    for (const { id: fnId, handler, designedErrorsMetric } of props.workflowFunctions) {
      const errors = handler.metricErrors({ period: PERIOD, statistic: 'Sum' });
      const invocations = handler.metricInvocations({ period: PERIOD, statistic: 'Sum' });
      this.add(`${fnId}ErrorsAlarm`, {
        alarmDescription: `More than ${WORKFLOW_ERROR_RATE_PERCENT}% of ${fnId} invocations failed (with at least 5)${designedErrorsMetric ? `, not counting ${designedErrorsMetric}` : ''}.`,
        metric: new MathExpression({
          label: `${fnId} error %`,
          // Designed throws leave the denominator too: a step that fails every real call must alarm
          // however many "still generating" polls surround it.
          expression: designedErrorsMetric
            ? 'IF((invocations - FILL(designed, 0)) >= 5, 100 * (errors - FILL(designed, 0)) / (invocations - FILL(designed, 0)), 0)'
            : 'IF(invocations >= 5, 100 * errors / invocations, 0)',
          usingMetrics: designedErrorsMetric
            ? { errors, invocations, designed: serviceMetric(designedErrorsMetric) }
            : { errors, invocations },
          period: PERIOD,
        }),
        threshold: WORKFLOW_ERROR_RATE_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }

    this.add('RefundRateAlarm', {
      alarmDescription:
        `More than ${REFUND_RATE_ALARM_PERCENT}% of tasks submitted in 15 minutes were refunded (with at least ` +
        '10 submits): an upstream, a model or our own workflow is failing tasks.',
      metric: new MathExpression({
        label: 'refunded %',
        expression: 'IF(FILL(submitted, 0) >= 10, 100 * FILL(refunded, 0) / submitted, 0)',
        usingMetrics: {
          submitted: serviceMetric(METRIC.tasksSubmitted).with({ period: REFUND_PERIOD }),
          refunded: serviceMetric(METRIC.tasksRefunded).with({ period: REFUND_PERIOD }),
        },
        period: REFUND_PERIOD,
      }),
      threshold: REFUND_RATE_ALARM_PERCENT,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    for (const { id: fnId, handler } of props.reservedFunctions) {
      this.add(`${fnId}ThrottlesAlarm`, {
        alarmDescription: `${fnId} was throttled: it used all of its reserved concurrency, so its work waits.`,
        metric: handler.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }
    // Every other function shares the account's unreserved pool: one alarm over the region's throttles.
    this.add('LambdaThrottlesAlarm', {
      alarmDescription:
        'A Lambda function of this account and region was throttled (the unreserved pool is used up): API calls ' +
        'answer 5xx or 429 and scheduled work waits.',
      metric: new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', period: PERIOD, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    for (const { id: tableId, table } of props.tables) {
      this.add(`${pascal(tableId)}TableThrottledAlarm`, {
        alarmDescription:
          `DynamoDB throttled reads or writes of the ${tableId} table (or one of its indexes): calls were ` +
          'retried and may have failed.',
        metric: new MathExpression({
          label: `${tableId} throttle events`,
          expression: 'FILL(reads, 0) + FILL(writes, 0)',
          usingMetrics: {
            reads: table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
            writes: table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
          },
          period: PERIOD,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }
  }

  private add(
    id: string,
    options: Pick<AlarmProps, 'alarmDescription' | 'metric' | 'threshold' | 'comparisonOperator'>,
  ): void {
    const alarm = new Alarm(this, id, {
      ...options,
      alarmName: alarmName(this.props.prefix, id),
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(pages(id) ? this.action : this.ticketAction);
    alarm.addOkAction(this.ticketAction);
    this.alarms.push(alarm);
    this.byId.set(id, alarm);
  }
}

/**
 * The `<prefix>-service` CloudWatch dashboard: the alarms' states, then tasks (submits, successes, failures,
 * refunds), the waiting room, upstream calls and errors, the webhook backlog, executions and throttles.
 * What each alarm means: docs/runbook.md.
 */
import type { IAlarm, IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { AlarmStatusWidget, Dashboard, GraphWidget, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRIC, PROVIDER_DIMENSION } from '../../../functions/core/metric-names.js';
import { PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import { serviceMetric, SERVICE_METRIC_PERIOD } from './service-metric.js';

const PERIOD = SERVICE_METRIC_PERIOD;

export interface ServiceDashboardProps {
  readonly prefix: string;
  readonly alarms: readonly IAlarm[];
  readonly webhookQueue: IQueue;
  readonly webhookDeadLetterQueue: IQueue;
  readonly stateMachine: IStateMachine;
}

export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const service = (metricName: string, label: string, dimensions: Record<string, string> = {}): IMetric =>
      serviceMetric(metricName, dimensions).with({ label });
    const perProvider = (metricName: string, what: string) =>
      PROVIDER_NAMES.map((provider) => service(metricName, `${provider} ${what}`, { [PROVIDER_DIMENSION]: provider }));
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 12, height: 6 });

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `${props.prefix}-service` });
    this.dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms (docs/runbook.md)', alarms: [...props.alarms], width: 24, height: 6 }),
    );
    this.dashboard.addWidgets(
      graph('Tasks', [
        service(METRIC.tasksSubmitted, 'submitted'),
        service(METRIC.tasksSucceeded, 'succeeded'),
        service(METRIC.tasksFailed, 'failed'),
        service(METRIC.tasksRefunded, 'refunded'),
      ]),
      graph(
        'Waiting room: starts the upstream could not take yet',
        perProvider(METRIC.upstreamStartsDeferred, 'deferred'),
        [service(METRIC.tasksRestarted, 'restarted by the reconciler')],
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Upstream calls and errors (operator errors: a refused key or account, a model not offered)',
        [
          ...perProvider(METRIC.upstreamErrors, 'errors'),
          ...perProvider(METRIC.upstreamOperatorErrors, 'operator errors'),
        ],
        perProvider(METRIC.upstreamRequests, 'requests'),
      ),
      graph(
        'Webhook backlog',
        [
          props.webhookQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, label: 'waiting' }),
          props.webhookQueue.metricApproximateNumberOfMessagesNotVisible({ period: PERIOD, label: 'in flight' }),
          props.webhookDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            label: 'dead-letter',
          }),
        ],
        [service(METRIC.webhookFailures, 'failed tries'), service(METRIC.webhooksRequeued, 'requeued')],
      ),
    );
    this.dashboard.addWidgets(
      graph('Executions', [
        props.stateMachine.metricStarted({ period: PERIOD, label: 'started' }),
        props.stateMachine.metricSucceeded({ period: PERIOD, label: 'succeeded' }),
        props.stateMachine.metricFailed({ period: PERIOD, label: 'failed' }),
        props.stateMachine.metricTimedOut({ period: PERIOD, label: 'timed out' }),
      ]),
      graph('Lambda throttles (account and Region)', [
        new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', period: PERIOD, statistic: 'Sum' }),
      ]),
    );
  }
}

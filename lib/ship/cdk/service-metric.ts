/**
 * A metric the functions emit as EMF log lines (functions/adapters/runtime/metrics.ts), as the alarms and the
 * dashboard read it: the service's namespace and `service` dimension, summed over five minutes.
 */
import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../../../functions/core/metric-names.js';

export const SERVICE_METRIC_PERIOD = Duration.minutes(5);

export function serviceMetric(metricName: string, dimensions: Record<string, string> = {}): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE, ...dimensions },
    period: SERVICE_METRIC_PERIOD,
    statistic: 'Sum',
  });
}

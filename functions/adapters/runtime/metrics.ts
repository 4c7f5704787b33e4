/**
 * Business and upstream metrics as CloudWatch Embedded Metric Format log lines (Powertools): no API
 * calls, no extra latency. Namespace and service come from POWERTOOLS_METRICS_NAMESPACE /
 * POWERTOOLS_SERVICE_NAME; POWERTOOLS_METRICS_DISABLED=true (the local runtime) turns them off.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type middy from '@middy/core';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE, PROVIDER_DIMENSION } from '../../core/metric-names.js';

export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
export { METRIC, MetricUnit };
export type MetricUnitValue = (typeof MetricUnit)[keyof typeof MetricUnit];

/** A metric with the `provider` dimension (one EMF line each: the invocation's other metrics have none). */
export const providerMetrics = {
  addMetric(name: string, unit: MetricUnitValue, value: number, provider: string): void {
    const single = metrics.singleMetric();
    single.addDimension(PROVIDER_DIMENSION, provider);
    single.addMetric(name, unit, value);
  },
};

export function countMetric(name: string, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}

/** Publishes what the invocation recorded, if anything (Powertools' own middleware warns when empty). */
export function publishMetrics(): middy.MiddlewareObj {
  const flush = async () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: flush, onError: flush };
}

/**
 * Scheduled (every minute in AWS; at start-up and periodically locally): a new message for every webhook
 * owed by a final task and overdue (functions/core/use-cases/requeue-webhooks.ts).
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { requeueWebhooks } from '../core/use-cases/requeue-webhooks.js';
import { readEnv } from '../adapters/runtime/config.js';
import { logger } from '../adapters/runtime/logger.js';
import { countMetric, METRIC, publishMetrics } from '../adapters/runtime/metrics.js';
import { pendingWebhooks, webhookQueue } from '../adapters/wiring/webhook-dependencies.js';

const deps = {
  pending: pendingWebhooks(),
  queue: webhookQueue(),
  now: () => new Date(),
  onRequeue: (taskId: string, attempts: number) =>
    logger.warn('requeued an overdue webhook', { task_id: taskId, attempts }),
};
/** A webhook overdue by less than this is left alone: its message may be on its way or its try running. */
const DEFAULT_MIN_AGE_SECONDS = readEnv('webhookRequeueAfterSeconds');

/**
 * The schedule's event is empty. The local stack's start-up run passes `minAgeSeconds: 0` with `finalBefore`,
 * its start: webhooks owed before it lost their messages with the in-memory queue; tasks that end after it
 * (restarted executions) queue their own.
 */
export const handler = middy<{ minAgeSeconds?: number; finalBefore?: string } | undefined, unknown>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event) => {
    const minAgeSeconds = typeof event?.minAgeSeconds === 'number' ? event.minAgeSeconds : DEFAULT_MIN_AGE_SECONDS;
    const finalBefore = typeof event?.finalBefore === 'string' ? event.finalBefore : undefined;
    const report = await requeueWebhooks(deps, minAgeSeconds * 1000, finalBefore);
    if (report.requeued > 0 || report.forgotten > 0) logger.info('requeued webhooks', { ...report });
    if (report.requeued > 0) countMetric(METRIC.webhooksRequeued, report.requeued);
    return report;
  });

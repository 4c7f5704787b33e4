/**
 * Scheduled (every minute in AWS; at start-up and periodically locally): restart stuck executions. A
 * throttled task waits for the next run; any other error fails the run once every task was looked at.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { PROVIDER_NAMES } from '../providers/registry.js';
import { reconcileTasks } from '../core/use-cases/reconcile-tasks.js';
import { repairSlots } from '../core/use-cases/repair-slots.js';
import { waitingRoomDependencies } from '../adapters/wiring/capacity-dependencies.js';
import { readEnv } from '../adapters/runtime/config.js';
import { logger } from '../adapters/runtime/logger.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { taskWorkflow } from '../adapters/wiring/workflow-dependencies.js';
import { countMetric, METRIC, publishMetrics } from '../adapters/runtime/metrics.js';

const deps = {
  tasks: taskRepository(),
  workflow: taskWorkflow(),
  now: () => new Date(),
  onRestart: (taskId: string, executionName: string, reason: string) =>
    logger.warn('restarted the execution of a stuck task', { task_id: taskId, execution: executionName, reason }),
  onError: (taskId: string, error: unknown) =>
    logger.error('could not reconcile a task', { task_id: taskId, error: error as Error }),
};
const slotDeps = waitingRoomDependencies();

/** Tasks untouched for less than this are left alone: their execution may be starting right now. */
const DEFAULT_MIN_AGE_SECONDS = readEnv('reconcileMinAgeSeconds');

export const handler = middy<{ minAgeSeconds?: number } | undefined, unknown>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event) => {
    const minAgeSeconds = typeof event?.minAgeSeconds === 'number' ? event.minAgeSeconds : DEFAULT_MIN_AGE_SECONDS;
    const report = await reconcileTasks(deps, minAgeSeconds * 1000);
    const slots = await repairSlots(PROVIDER_NAMES, slotDeps, minAgeSeconds * 1000);
    if (slots.released > 0) logger.warn('gave back upstream slots that ended tasks still held', { ...slots });
    if (report.restarted > 0) countMetric(METRIC.tasksRestarted, report.restarted);
    if (report.restarted > 0 || report.throttled > 0 || report.failed > 0) logger.info('reconciled', { ...report });
    if (report.failed > 0) throw new Error(`${report.failed} task(s) could not be reconciled (logged above)`);
    return report;
  });

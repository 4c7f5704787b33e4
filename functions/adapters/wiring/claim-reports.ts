/** What the claim's settling reports (functions/core/use-cases/upstream-claim.ts), as logs and metrics. */
import { logger } from '../runtime/logger.js';
import { countMetric, METRIC } from '../runtime/metrics.js';

export const claimReports = {
  onJobAdopted: (taskId: string, jobId: string) => {
    countMetric(METRIC.upstreamJobsAdopted);
    logger.warn('adopted an upstream job a lost create had made', { task_id: taskId, upstream_job_id: jobId });
  },
  onJobOrphaned: (taskId: string, jobId: string, reason: string) => {
    countMetric(METRIC.upstreamJobsOrphaned);
    logger.error('an upstream job belongs to no task', { task_id: taskId, upstream_job_id: jobId, reason });
  },
};

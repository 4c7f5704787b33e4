/** Metric names and namespace shared by the functions (which emit) and the alarms (which read). */
export const METRICS_NAMESPACE = 'VideoGeneration';
export const METRICS_SERVICE = 'video-generation';
/** Upstream metrics carry the provider's name (functions/providers/registry.ts) in this dimension. */
export const PROVIDER_DIMENSION = 'provider';

export const METRIC = {
  /** Top-ups credited, and payment reports that credited nothing (a bad signature, another app, an amount). */
  topupsCredited: 'TopupsCredited',
  topupNoticesRefused: 'TopupNoticesRefused',
  tasksSubmitted: 'TasksSubmitted',
  tasksSucceeded: 'TasksSucceeded',
  tasksFailed: 'TasksFailed',
  tasksRefunded: 'TasksRefunded',
  tasksRestarted: 'TasksRestarted',
  webhookAttempts: 'WebhookAttempts',
  webhookFailures: 'WebhookFailures',
  /** Webhooks the requeuer sent again: overdue, their message lost (a crash, a local restart). */
  webhooksRequeued: 'WebhooksRequeued',
  upstreamRequests: 'UpstreamRequests',
  upstreamErrors: 'UpstreamErrors',
  upstreamLatency: 'UpstreamLatency',
  /**
   * Creates the upstream could not take yet (busy, or a key or account to fix): StartUpstream throws for each,
   * and its Retry waits and tries again until the task's deadline.
   */
  upstreamStartsDeferred: 'UpstreamStartsDeferred',
  /** Upstream errors only an operator can fix: a refused key or account, a model not offered (alarmed). */
  upstreamOperatorErrors: 'UpstreamOperatorErrors',
  /** Jobs a lost create made, found upstream and recorded for their task (a start died or lost its answer). */
  upstreamJobsAdopted: 'UpstreamJobsAdopted',
  /** Jobs made for a task that had ended, or that no task could be told to own: they may bill (alarmed). */
  upstreamJobsOrphaned: 'UpstreamJobsOrphaned',
} as const;

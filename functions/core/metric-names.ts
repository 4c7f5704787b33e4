/** Metric names and namespace shared by the functions (which emit) and the alarms (which read). */
export const METRICS_NAMESPACE = 'VideoGeneration';
export const METRICS_SERVICE = 'video-generation';

export const METRIC = {
  tasksSubmitted: 'TasksSubmitted',
  tasksSucceeded: 'TasksSucceeded',
  tasksFailed: 'TasksFailed',
  tasksRefunded: 'TasksRefunded',
  tasksRestarted: 'TasksRestarted',
  webhookAttempts: 'WebhookAttempts',
  webhookFailures: 'WebhookFailures',
  upstreamRequests: 'UpstreamRequests',
  upstreamErrors: 'UpstreamErrors',
  upstreamLatency: 'UpstreamLatency',
} as const;

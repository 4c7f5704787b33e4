/**
 * The API's routes and the state machine's functions: one table read by the CDK stack (to wire API
 * Gateway and Lambda) and by the local stack (to dispatch in-process), so both serve the same surface.
 */
import { TASK_STARTS, UPLOAD_TRANSCODER, WEBHOOK_QUEUE } from '../functions/adapters/resources.js';
import { METRIC } from '../functions/core/metric-names.js';

export interface RouteDefinition {
  id: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** API Gateway HTTP API path syntax: `{name}` is a path parameter. */
  path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  /**
   * `jwt`: a console route (docs/console.md), guarded by API Gateway's JWT authorizer (Cognito access tokens; the local
   * gateway checks the same). Otherwise the handler authenticates a `bc_` key itself, or the route is public.
   */
  auth?: 'jwt';
}

/**
 * The scope every console route requires of a token (any one of them): Cognito puts it in each access token its
 * API (InitiateAuth) issues and none in ID tokens, so an ID token cannot stand in for an access token ("configure
 * your routes to require authorization scopes": API Gateway guide, "Control access to HTTP APIs with JWT
 * authorizers"). A verified token without it: API Gateway's 403 `{"message":"Forbidden"}`.
 */
export const CONSOLE_ROUTE_SCOPES: readonly string[] = ['aws.cognito.signin.user.admin'];

/** A console route: its handler in functions/http/console/. */
function consoleRoute(id: string, method: RouteDefinition['method'], path: string, file: string): RouteDefinition {
  return {
    id: `Console${id}`,
    method,
    path: `/api/v1/console${path}`,
    entry: `functions/http/console/${file}`,
    auth: 'jwt',
  };
}

/** The customer console's API (docs/console.md): the same use cases as the public API, for the signed-in user's account. */
export const CONSOLE_ROUTES: readonly RouteDefinition[] = [
  consoleRoute('GetAccount', 'GET', '/account', 'get-account.ts'),
  consoleRoute('ListTransactions', 'GET', '/transactions', 'list-transactions.ts'),
  consoleRoute('ListTasks', 'GET', '/tasks', 'list-tasks.ts'),
  consoleRoute('GetTask', 'GET', '/tasks/{id}', 'get-task.ts'),
  consoleRoute('ListKeys', 'GET', '/keys', 'list-keys.ts'),
  consoleRoute('CreateKey', 'POST', '/keys', 'create-key.ts'),
  consoleRoute('UpdateKey', 'PATCH', '/keys/{id}', 'update-key.ts'),
  consoleRoute('GetWebhookSecret', 'GET', '/webhook-secret', 'get-webhook-secret.ts'),
  consoleRoute('RotateWebhookSecret', 'POST', '/webhook-secret/rotate', 'rotate-webhook-secret.ts'),
  consoleRoute('SendTestWebhook', 'POST', '/webhook-test', 'send-test-webhook.ts'),
  consoleRoute('RedeemCode', 'POST', '/redeem', 'redeem-code.ts'),
  consoleRoute('ListModels', 'GET', '/models', 'list-models.ts'),
];

export const API_ROUTES: readonly RouteDefinition[] = [
  { id: 'SubmitTask', method: 'POST', path: '/api/v1/video/generate', entry: 'functions/http/submit-task.ts' },
  { id: 'ListTasks', method: 'GET', path: '/api/v1/video/tasks', entry: 'functions/http/list-tasks.ts' },
  { id: 'GetTask', method: 'GET', path: '/api/v1/video/tasks/{id}', entry: 'functions/http/get-task.ts' },
  {
    id: 'CancelTask',
    method: 'POST',
    path: '/api/v1/video/tasks/{id}/cancel',
    entry: 'functions/http/cancel-task.ts',
  },
  { id: 'GetBalance', method: 'GET', path: '/api/v1/account/balance', entry: 'functions/http/get-balance.ts' },
  {
    id: 'ListTransactions',
    method: 'GET',
    path: '/api/v1/account/transactions',
    entry: 'functions/http/list-transactions.ts',
  },
  { id: 'ListModels', method: 'GET', path: '/api/v1/models', entry: 'functions/http/list-models.ts' },
  { id: 'CreateUpload', method: 'POST', path: '/api/v1/uploads', entry: 'functions/http/create-upload.ts' },
  // No API key (docs/api-contract.md, "Routes"): for load balancers and uptime checks, and the API's own description.
  { id: 'Health', method: 'GET', path: '/api/v1/health', entry: 'functions/http/health.ts' },
  { id: 'GetOpenApi', method: 'GET', path: '/api/v1/openapi.json', entry: 'functions/http/get-openapi.ts' },
  { id: 'GetDocs', method: 'GET', path: '/docs', entry: 'functions/http/get-docs.ts' },
  // The upstream's job reports (docs/task-lifecycle.md, "Completion"): no API key; the per-task secret in the path guards it.
  {
    id: 'UpstreamCallback',
    method: 'POST',
    path: '/api/v1/upstream-callbacks/{id}/{secret}',
    entry: 'functions/http/upstream-callback.ts',
  },
  ...CONSOLE_ROUTES,
];

/** API Gateway's `$default` route: everything unmatched still answers with the envelope. */
export const DEFAULT_ROUTE = { id: 'NotFound', entry: 'functions/http/not-found.ts' } as const;

export interface WorkflowFunctionDefinition {
  id: string;
  /** The `${Token}` in the ASL file that receives this function's ARN. */
  aslToken: string;
  entry: string;
  /**
   * The function's count (a service metric, functions/core/metric-names.ts) of the errors it throws by
   * design, which its error-rate alarm leaves out: StartUpstream's "back to the waiting room".
   */
  designedErrorsMetric?: string;
}

export const WORKFLOW_FUNCTIONS: readonly WorkflowFunctionDefinition[] = [
  // Uploaded references made fetchable for the upstream, H.265 transcoded (docs/api-contract.md, "Uploads"): ffmpeg, x86_64.
  { id: 'PrepareInputs', aslToken: 'PrepareInputsFunctionArn', entry: 'functions/workflow/prepare-inputs.ts' },
  {
    id: 'WaitForUpstreamSlot',
    aslToken: 'WaitForUpstreamSlotFunctionArn',
    entry: 'functions/workflow/wait-for-slot.ts',
  },
  {
    id: 'StartUpstream',
    aslToken: 'StartUpstreamFunctionArn',
    entry: 'functions/workflow/start-upstream.ts',
    // "No room upstream after all" (429, account problems) sends the task back to the waiting room.
    designedErrorsMetric: METRIC.upstreamStartsDeferred,
  },
  { id: 'AwaitCompletion', aslToken: 'AwaitCompletionFunctionArn', entry: 'functions/workflow/await-completion.ts' },
  { id: 'TransferVideo', aslToken: 'TransferVideoFunctionArn', entry: 'functions/workflow/transfer-video.ts' },
  { id: 'CompleteTask', aslToken: 'CompleteTaskFunctionArn', entry: 'functions/workflow/complete-task.ts' },
  { id: 'FailAndRefund', aslToken: 'FailAndRefundFunctionArn', entry: 'functions/workflow/fail-and-refund.ts' },
];

/** Functions run on a schedule (EventBridge in AWS; timers in the local stack). */
export const SCHEDULED_FUNCTIONS = [
  { id: 'ReconcileTasks', entry: 'functions/workflow/reconcile-tasks.ts', everyMinutes: 1 },
  { id: 'RequeueWebhooks', entry: 'functions/webhooks/requeue-webhooks.ts', everyMinutes: 1 },
] as const;

/** Every function the service deploys, each once: the routes, the state machine's, the scheduled ones, the consumers. */
export const ALL_FUNCTIONS: readonly { id: string; entry: string }[] = [
  ...API_ROUTES,
  DEFAULT_ROUTE,
  ...WORKFLOW_FUNCTIONS,
  ...SCHEDULED_FUNCTIONS,
  WEBHOOK_QUEUE.consumer,
  TASK_STARTS.starter,
  UPLOAD_TRANSCODER,
].map(({ id, entry }) => ({ id, entry }));

/** ASL tokens that are not function ARNs. */
export const ASL_RESOURCE_TOKENS = {
  /** URL of the webhook queue (WEBHOOK_QUEUE in functions/adapters/resources.ts), for the states that send to it. */
  webhookQueueUrl: 'WebhookQueueUrl',
  /** The partition of the stack (`aws`, `aws-cn`): service integration ARNs (`arn:${Partition}:states:::…`). */
  partition: 'Partition',
} as const;

/** Compiles `/api/v1/video/tasks/{id}` into a matcher returning the path parameters. */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const { pattern, names } = compiled(template);
  const match = pattern.exec(path);
  if (!match) return undefined;
  return Object.fromEntries(names.map((name, index) => [name, decodeSegment(match[index + 1] as string)]));
}

const matchers = new Map<string, { pattern: RegExp; names: string[] }>();

/** Each template compiled once: the local API Gateway matches every request against every route. */
function compiled(template: string): { pattern: RegExp; names: string[] } {
  let matcher = matchers.get(template);
  if (!matcher) {
    const names: string[] = [];
    const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_match, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    matcher = { pattern: new RegExp(`^${source}$`), names };
    matchers.set(template, matcher);
  }
  return matcher;
}

/** A malformed %-escape (`%E0%A4%A`) stays as sent, for the handler to refuse (400), never a 500. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

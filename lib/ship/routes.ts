/**
 * The API's routes and the state machine's functions, derived from functions/catalog.ts: read by the CDK stack
 * (to wire API Gateway and Lambda) and by the local stack (to dispatch in-process), so both serve the same surface.
 */
import { CATALOG } from '../../functions/catalog.js';
import type { FunctionDeclaration, HttpMethod } from '../../functions/catalog.js';

export interface RouteDefinition {
  id: string;
  method: HttpMethod;
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

/** Every HTTP route (the console's included), in the catalog's order. */
export const API_ROUTES: readonly RouteDefinition[] = CATALOG.flatMap(({ id, entry, trigger }) =>
  'http' in trigger && trigger.http !== 'default' ? [{ id, entry, ...trigger.http }] : [],
);

/** The customer console's API (docs/console.md): the same use cases as the public API, for the signed-in user's account. */
export const CONSOLE_ROUTES: readonly RouteDefinition[] = API_ROUTES.filter((route) => route.auth === 'jwt');

const only = (found: FunctionDeclaration | undefined, what: string) => {
  if (!found) throw new Error(`functions/catalog.ts declares no ${what}`);
  return found;
};
const defaultRoute = only(
  CATALOG.find(({ trigger }) => 'http' in trigger && trigger.http === 'default'),
  'default route',
);
/** API Gateway's `$default` route: everything unmatched still answers with the envelope. */
export const DEFAULT_ROUTE = { id: defaultRoute.id, entry: defaultRoute.entry } as const;

export interface WorkflowFunctionDefinition {
  id: string;
  /** The `${Token}` in the ASL file that receives this function's ARN. */
  aslToken: string;
  entry: string;
  /** Its errors thrown by design, left out of its error-rate alarm (FunctionDeclaration.designedErrorsMetric). */
  designedErrorsMetric?: string;
}

export const WORKFLOW_FUNCTIONS: readonly WorkflowFunctionDefinition[] = CATALOG.flatMap(
  ({ id, entry, trigger, designedErrorsMetric }) =>
    'state' in trigger
      ? [{ id, entry, aslToken: trigger.state, ...(designedErrorsMetric && { designedErrorsMetric }) }]
      : [],
);

/** Functions run on a schedule (EventBridge in AWS; timers in the local stack). */
export const SCHEDULED_FUNCTIONS: readonly { id: string; entry: string; everyMinutes: number }[] = CATALOG.flatMap(
  ({ id, entry, trigger }) => ('everyMinutes' in trigger ? [{ id, entry, everyMinutes: trigger.everyMinutes }] : []),
);

/** Every function the service deploys, each once. */
export const ALL_FUNCTIONS: readonly { id: string; entry: string }[] = CATALOG.map(({ id, entry }) => ({ id, entry }));

/** ASL tokens that are not function ARNs. */
export const ASL_RESOURCE_TOKENS = {
  /** URL of the webhook queue (WEBHOOK_QUEUE in functions/adapters/runtime/resources.ts), for the states that send to it. */
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

/**
 * Child entry: the local API Gateway and the API handlers in a process of their own (forked by
 * api-process-client.ts), as a Lambda instance holds its handler and nothing else; beside the emulators
 * they answered 5–22 % fewer GETs. IPC only: `ready` or `failed`, `access-log` lines, `stop`.
 */
import { childOfLocalStack, reportStartFailure } from './forked-process.js';
import type { StartMessage } from './forked-process.js';
import { HTTP_API_INTEGRATION_TIMEOUT_MS, startApiGatewayServer } from './api-gateway-server.js';
import type { GatewaySettings, HttpHandler } from './api-gateway-server.js';
import { applyLocalHandlerEnvironment } from '../../ship/sam-local/handler-environment.js';
import type { LocalHandlerEndpoints } from '../../ship/sam-local/handler-environment.js';
import { loadBundledHandler } from './handler-loader.js';
import type { BundleFiles } from './handler-loader.js';
import { lambdaContext } from './lambda-context.js';
import { localFunction, localTimeoutFactor, localTimeoutMs } from './local-function.js';
import type { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import { functionById } from '../../../functions/catalog.js';
import { API_ROUTES, DEFAULT_ROUTE } from '../../ship/routes.js';

export interface LocalApiConfig {
  names: ReturnType<typeof physicalNames>;
  endpoints: LocalHandlerEndpoints;
  /** Each function's bundle by its entry (lib/ship/build/lambda-bundles.ts). */
  bundles: BundleFiles;
  /** Extra environment for the handlers (e.g. DEFAULT_RATE_LIMIT_PER_SECOND). */
  environment: Record<string, string>;
  /** 0 picks a free one. */
  port: number;
  /** Send one `access-log` message per request. */
  accessLog: boolean;
  /** The console routes' JWT authorizer and the console's files (absent: 401 on those routes, no /console). */
  gateway?: GatewaySettings;
}
export type ApiReady = { url: string };
export type ApiMessage = StartMessage<ApiReady> | { type: 'access-log'; line: string } | { type: 'stopped' };

const send = (message: ApiMessage) => process.send?.(message);
let stopping = false;
const config = childOfLocalStack<LocalApiConfig>('api-process', () => stopping);

async function start() {
  // Before any handler loads: they read their config at load time, as at a Lambda cold start.
  applyLocalHandlerEnvironment(config.names, config.endpoints, config.environment);
  const nameOf = (id: string) => `${config.names.stateMachine}-${id}`;
  // Each with only its own variables and under its own timeout (local-function.ts), loaded on its first
  // request, as Lambda starts a function cold: a stack pays only for the routes it serves.
  const handlerOf = (id: string, entry: string): HttpHandler => {
    const run = localFunction(
      functionById(id),
      () => loadBundledHandler<HttpHandler>(config.bundles, entry),
      nameOf(id),
    );
    return (event) => run(event);
  };
  return startApiGatewayServer({
    routes: API_ROUTES.map((route) => ({ ...route, handler: handlerOf(route.id, route.entry) })),
    defaultRoute: { id: DEFAULT_ROUTE.id, handler: handlerOf(DEFAULT_ROUTE.id, DEFAULT_ROUTE.entry) },
    contextFor: (routeId) => lambdaContext(nameOf(routeId), localTimeoutMs(functionById(routeId))),
    // Scaled as the functions' timeouts are, so a function's timeout still ends before the gateway's, as in AWS.
    integrationTimeoutMs: HTTP_API_INTEGRATION_TIMEOUT_MS * localTimeoutFactor(),
    port: config.port,
    ...(config.gateway?.jwtAuthorizer && { jwtAuthorizer: config.gateway.jwtAuthorizer }),
    ...(config.gateway?.console && { console: config.gateway.console }),
    ...(config.accessLog ? { accessLog: (line: string) => send({ type: 'access-log', line }) } : {}),
  });
}

const api = await start().catch(reportStartFailure);
process.on('message', (message: { type: string }) => {
  if (message.type === 'stop' && !stopping) {
    stopping = true;
    // The last message's callback runs once every message before it (access-log lines) is written.
    void api.close().finally(() => process.send!({ type: 'stopped' } satisfies ApiMessage, () => process.exit(0)));
  }
});
send({ type: 'ready', url: api.url });

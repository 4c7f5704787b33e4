/**
 * A local stand-in for AWS Step Functions, so the local stack runs statemachine/task-lifecycle.asl.json as is:
 * an HTTP server speaking the AWS JSON 1.0 protocol `@aws-sdk/client-sfn` sends, executions run in-process by
 * `aws-local-stepfunctions` (which gives Retry/Catch/Wait/Choice). It serves only what our ASL and code use:
 * Lambda task states (in-process handlers), lambda:invoke.waitForTaskToken (task tokens, heartbeats),
 * sqs:sendMessage; Start/Describe/StopExecution and SendTaskSuccess/SendTaskFailure/SendTaskHeartbeat.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StateMachine } from 'aws-local-stepfunctions';
import { ApiError } from './step-functions-errors.js';
import { Executions } from './step-functions-executions.js';
import type { ApiInput } from './step-functions-executions.js';
import type { LocalStepFunctions, LocalStepFunctionsOptions } from './step-functions-options.js';
import { libraryDefinition, libraryTimeoutErrors, taskPlans } from './step-functions-tasks.js';
import type { AslDefinition } from './step-functions-tasks.js';

export { HISTORY_EVENT_LIMIT } from './step-functions-options.js';
export type {
  ExecutionRecord,
  ExecutionStatus,
  LocalLambdaHandler,
  LocalStepFunctions,
  LocalStepFunctionsOptions,
} from './step-functions-options.js';
export { libraryTimeoutErrors } from './step-functions-tasks.js';

export async function startLocalStepFunctions(o: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const definition = o.definition as AslDefinition;
  const plans = taskPlans(o);
  const machine = new StateMachine(libraryDefinition(definition, plans));
  const executions = new Executions(machine, plans, o, await libraryTimeoutErrors());
  const server = createServer((req, res) => void handleHttp(req, res, executions));
  const endpoint = await listen(server);
  return {
    endpoint,
    close: async () => {
      executions.abortAll('Local Step Functions server closed');
      await closeServer(server);
    },
    executions: () => executions.snapshot(),
    idle: () => executions.idle(),
  };
}

// ----- HTTP: AWS JSON 1.0, a POST naming its action in X-Amz-Target; errors as `{ __type, message }`, which the
// SDK turns into its named exception classes (ExecutionAlreadyExists, ExecutionDoesNotExist, ...).

const TARGET_PREFIX = 'AWSStepFunctions.';

async function handleHttp(req: IncomingMessage, res: ServerResponse, executions: Executions): Promise<void> {
  try {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(TARGET_PREFIX)
      ? executions.operations[target.slice(TARGET_PREFIX.length)]
      : undefined;
    if (req.method !== 'POST' || !operation) {
      throw new ApiError('UnknownOperationException', `Operation not served locally: '${target}'`);
    }
    sendJson(res, 200, operation(await readRequest(req)));
  } catch (err) {
    if (err instanceof ApiError) sendJson(res, 400, { __type: err.type, message: err.message });
    else sendJson(res, 500, { __type: 'InternalFailure', message: err instanceof Error ? err.message : String(err) });
  }
}

async function readRequest(req: IncomingMessage): Promise<ApiInput> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ApiInput;
  } catch {
    // falls through to SerializationException
  }
  throw new ApiError('SerializationException', 'Request body is not a JSON object');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(payload),
    'x-amzn-RequestId': randomUUID(),
  });
  res.end(payload);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

/** SDK clients keep connections alive, so idle sockets are closed explicitly or close() would hang. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}

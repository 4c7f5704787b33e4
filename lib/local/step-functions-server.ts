/**
 * A local stand-in for AWS Step Functions, so the local stack runs statemachine/task-lifecycle.asl.json as is: an
 * HTTP server speaking the AWS JSON 1.0 protocol `@aws-sdk/client-sfn` sends, executions run in-process by
 * `aws-local-stepfunctions` (Retry/Catch/Wait/Choice, task timeouts). Served: what our ASL and code use
 * (step-functions-executions.ts, step-functions-tasks.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StateMachine } from 'aws-local-stepfunctions';
import { ApiError, apiError, Executions, parseJson } from './step-functions-executions.js';
import type { ApiInput, ExecutionRecord, LocalStepFunctionsOptions } from './step-functions-executions.js';
import { libraryDefinition, libraryTimeoutErrors, taskHandlers, type AslDefinition } from './step-functions-tasks.js';

export { HISTORY_EVENT_LIMIT } from './step-functions-executions.js';
export type { ExecutionRecord, ExecutionStatus, LocalStepFunctionsOptions } from './step-functions-executions.js';
export { libraryTimeoutErrors, type LocalLambdaHandler } from './step-functions-tasks.js';

export interface LocalStepFunctions {
  /** Base URL to give SFNClient as `endpoint`. */
  endpoint: string;
  /** Aborts running executions (their waiting tasks too) and stops the server; idle() waits for the handlers. */
  close(): Promise<void>;
  /** Every execution, oldest first. */
  executions(): ExecutionRecord[];
  /** Resolves when no execution is running and no task handler is still in flight. */
  idle(): Promise<void>;
}

export async function startLocalStepFunctions(o: LocalStepFunctionsOptions): Promise<LocalStepFunctions> {
  const definition = o.definition as AslDefinition;
  const handlers = taskHandlers(definition, o.lambdaHandlers, o.sqs);
  const machine = new StateMachine(libraryDefinition(definition));
  const executions = new Executions(machine, handlers, o, await libraryTimeoutErrors());
  const server = createServer((req, res) => void handleHttp(req, res, executions));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      executions.abortAll('Local Step Functions server closed');
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections(); // SDK clients keep connections alive: close() would wait for them
      await closed;
    },
    executions: () => executions.snapshot(),
    idle: () => executions.idle(),
  };
}

/** A POST naming its action in X-Amz-Target; errors as `{ __type, message }`, the SDK's named exceptions. */
async function handleHttp(req: IncomingMessage, res: ServerResponse, executions: Executions): Promise<void> {
  const send = (status: number, body: unknown = {}) => {
    const payload = JSON.stringify(body);
    const headers = { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': randomUUID() };
    res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(payload) }).end(payload);
  };
  try {
    const target = String(req.headers['x-amz-target']);
    const operation = target.startsWith('AWSStepFunctions.') ? executions.operations[target.slice(17)] : undefined;
    if (req.method !== 'POST' || !operation)
      throw apiError('UnknownOperationException', `Not served locally: '${target}'`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    send(
      200,
      operation(parseJson(Buffer.concat(chunks).toString() || '{}', 'SerializationException', 'Body') as ApiInput),
    );
  } catch (err) {
    const { name, message } = err as Error;
    if (err instanceof ApiError) send(400, { __type: name, message });
    else send(500, { __type: 'InternalFailure', message });
  }
}

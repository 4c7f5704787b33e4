/**
 * Lambda's Invoke API (RequestResponse) on 127.0.0.1 for the functions one function invokes (PrepareInputs →
 * TranscodeUpload): each runs its bundle, as CDK deploys it, within its timeout. Answers as Lambda does: the
 * result as the body, a thrown error as `{errorType, errorMessage}` with `X-Amz-Function-Error: Unhandled`, an
 * invoke past the function's concurrency 429 TooManyRequestsException (Invoke API reference).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lambdaContext } from './lambda-context.js';
import { isThrottle } from './lambda-concurrency.js';

export interface InvokedFunction {
  /** The handler, loaded on first use (a cold start). */
  handler: () => Promise<(event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>>;
  timeoutMs: number;
}

/** Lambda's limit on a synchronous invocation's request and response payloads (Lambda quotas): 6 MB. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

export async function startLambdaInvokeServer(functions: Readonly<Record<string, InvokedFunction>>) {
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const name = INVOKE_PATH.exec(req.url?.split('?')[0] ?? '')?.[1];
    const fn = name === undefined ? undefined : functions[decodeURIComponent(name)];
    if (req.method !== 'POST' || !fn) {
      send(
        404,
        { Type: 'User', message: `Function not found: ${name ?? req.url}` },
        {
          'x-amzn-errortype': 'ResourceNotFoundException',
        },
      );
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > MAX_PAYLOAD_BYTES) {
        send(
          413,
          { message: 'Request must be smaller than 6291456 bytes' },
          {
            'x-amzn-errortype': 'RequestTooLargeException',
          },
        );
        return;
      }
      void run(fn, decodeURIComponent(name!), body.length === 0 ? {} : (JSON.parse(body.toString()) as unknown)).then(
        (result) => send(200, result ?? null),
        (error: Error) =>
          isThrottle(error)
            ? send(
                429,
                { Reason: error.reason, Type: 'User', message: error.message },
                { 'x-amzn-errortype': 'TooManyRequestsException' },
              )
            : send(
                200,
                { errorType: error.name, errorMessage: error.message },
                { 'x-amz-function-error': 'Unhandled' },
              ),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function run(fn: InvokedFunction, name: string, event: unknown): Promise<unknown> {
  const handler = await fn.handler();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`Task timed out after ${(fn.timeoutMs / 1000).toFixed(2)} seconds`);
      error.name = 'Sandbox.Timedout';
      reject(error);
    }, fn.timeoutMs);
  });
  try {
    return await Promise.race([handler(event, lambdaContext(name, fn.timeoutMs)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A Lambda `Context` for in-process invocations, with the fields handlers and Powertools read. */
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

export function lambdaContext(functionName: string, timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  const fail = () => {
    throw new Error('callback-style completion is not supported');
  };
  return {
    awsRequestId: randomUUID(),
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail,
    fail,
    succeed: fail,
  };
}

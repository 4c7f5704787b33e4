/**
 * The variables a `sam local` function must declare (lib/ship/cdk/sam-local.ts declares them, sam-env.ts fills them
 * in): every one the local stack gives its handlers, less the names Lambda reserves.
 */
import { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import { everyProviderAt, localHandlerEnvironment } from './handler-environment.js';

/**
 * Lambda's reserved variables (Lambda Developer Guide, "Defined runtime environment variables"): a function
 * may not declare them, and SAM sets the credentials and region ones itself from the caller's AWS config.
 */
export const LAMBDA_RESERVED_VARIABLES: readonly string[] = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
];

/** What the local stack sets for its handlers (lib/ship/sam-local/handler-environment.ts), less Lambda's reserved names. */
export function samLocalVariables(): string[] {
  const endpoints = {
    dynamodb: '',
    s3AndSqs: '',
    sfn: '',
    upstreams: everyProviderAt('', ''),
    stateMachineArn: '',
    webhookQueueUrl: '',
  };
  return Object.keys(localHandlerEnvironment(physicalNames('sam'), endpoints)).filter(
    (name) => !LAMBDA_RESERVED_VARIABLES.includes(name),
  );
}

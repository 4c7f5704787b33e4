/**
 * The `sam local` synthesis (`-c samLocal=true`, never deployed): SAM gives a function only the variables
 * its template declares (aws-sam-cli #1553, #6145), so this one also declares, empty, every variable the
 * local stack gives the handlers, for env.json (lib/local/sam-env.ts) to fill in. Empty reads as unset to
 * functions/adapters/config.ts and to the AWS SDK.
 */
import { physicalNames } from '../../functions/adapters/resources.js';
import { everyProviderAt, localHandlerEnvironment } from '../local/handler-environment.js';

export const SAM_LOCAL_CONTEXT = 'samLocal';

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

/** What the local stack sets for its handlers (lib/local/handler-environment.ts), less Lambda's reserved names. */
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

type Template = { Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

/** The rendered template with each function declaring every `samLocalVariables()` name it lacks, as "". */
export function withSamLocalVariables<T extends Template>(template: T): T {
  const names = samLocalVariables();
  for (const resource of Object.values(template.Resources ?? {})) {
    if (resource.Type !== 'AWS::Lambda::Function' || !resource.Properties) continue;
    const environment = (resource.Properties['Environment'] ??= { Variables: {} }) as {
      Variables: Record<string, unknown>;
    };
    for (const name of names) if (!(name in environment.Variables)) environment.Variables[name] = '';
  }
  return template;
}

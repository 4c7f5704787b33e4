/**
 * env.json for `sam local` against the running local stack. SAM keys it by function logical id and applies
 * only variables the template declares (hence the `-c samLocal=true` synthesis, lib/cdk/sam-local.ts); a
 * reference it cannot resolve (Fn::GetStackOutput) reaches the function as "". So every declared variable
 * gets its local value, and every reference without one gets an explicit "": nothing points at AWS.
 */
import type { physicalNames } from '../../functions/adapters/resources.js';
import { LAMBDA_RESERVED_VARIABLES, samLocalVariables } from '../cdk/sam-local.js';
import { localHandlerEnvironment } from './handler-environment.js';
import { UPSTREAM_API_KEY } from './local-stack.js';
import { localStateMachineArn } from './local-workflow.js';

/** What `npm start` writes to `.data/local-stack.json`. */
export interface LocalStackRuntime {
  endpoints: { dynamodb: string; s3: string; sqs: string; sfn: string; upstream: string };
  names: ReturnType<typeof physicalNames>;
}

export type CfnTemplate = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

/** Lambda functions of a template: logical id → declared variables. */
export function functionVariables(template: CfnTemplate): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([logicalId, resource]) => [
        logicalId,
        (resource.Properties?.['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
      ]),
  );
}

/** Functions that lack some variable env.json sets: the template was not synthesized with `-c samLocal=true`. */
export function functionsMissingSamVariables(template: CfnTemplate): string[] {
  const names = samLocalVariables();
  return Object.entries(functionVariables(template))
    .filter(([, variables]) => names.some((name) => !(name in variables)))
    .map(([logicalId]) => logicalId);
}

/**
 * env.json's content. `host` replaces 127.0.0.1 in the endpoints: inside SAM's containers that address is
 * the container itself (Docker Desktop resolves host.docker.internal to the host).
 */
export function samEnvVars(
  template: CfnTemplate,
  runtime: LocalStackRuntime,
  host: string,
): Record<string, Record<string, string>> {
  const rehost = (url: string) => url.replace(/\/\/(127\.0\.0\.1|localhost)(?=[:/]|$)/, `//${host}`);
  const local = localHandlerEnvironment(runtime.names, {
    dynamodb: rehost(runtime.endpoints.dynamodb),
    s3AndSqs: rehost(runtime.endpoints.s3),
    sfn: rehost(runtime.endpoints.sfn),
    upstreamBaseUrl: rehost(runtime.endpoints.upstream),
    upstreamApiKey: UPSTREAM_API_KEY,
    stateMachineArn: localStateMachineArn(runtime.names),
    // Only the webhook consumer reads it, and no queue event source runs under SAM.
    webhookQueueUrl: '',
  });
  return Object.fromEntries(
    Object.entries(functionVariables(template)).map(([logicalId, variables]) => {
      const values: Record<string, string> = {};
      for (const [name, value] of Object.entries(variables)) {
        if (LAMBDA_RESERVED_VARIABLES.includes(name)) continue;
        const localValue = local[name];
        if (localValue !== undefined) values[name] = localValue;
        // A reference to the AWS deployment (a secret ARN, the CloudFront domain: unset means S3 presigned URLs).
        else if (typeof value !== 'string') values[name] = '';
      }
      return [logicalId, values];
    }),
  );
}

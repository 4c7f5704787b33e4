/**
 * env.json for `sam local` against the running local stack. SAM keys it by function logical id and applies
 * only variables the template declares (hence the `-c samLocal=true` synthesis, lib/ship/cdk/sam-local.ts); a
 * reference it cannot resolve (Fn::GetStackOutput) reaches the function as "". So every declared variable
 * gets its local value, and every reference without one gets an explicit "": nothing points at AWS.
 */
import { ENV, providerEnv } from '../../../functions/adapters/runtime/config.js';
import type { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import { PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import { LAMBDA_RESERVED_VARIABLES, samLocalVariables } from '../../ship/sam-local/sam-variables.js';
import { localHandlerEnvironment } from '../../ship/sam-local/handler-environment.js';
import type { UpstreamEndpoint } from '../../ship/sam-local/handler-environment.js';
import type { LocalStack } from './local-stack.js';
import { localStateMachineArn } from './local-workflow.js';
import { simulatorApiKey } from './upstreams.js';

/** What `npm start` writes to `.data/local-stack.json` (no upstream key: the file is not a secret store). */
export interface LocalStackRuntime {
  endpoints: LocalStack['endpoints'];
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

/** Providers the running stack sends to their real upstream: env.json needs their keys from the caller. */
export function realUpstreams(runtime: LocalStackRuntime): ProviderName[] {
  return PROVIDER_NAMES.filter((provider) => !runtime.endpoints.upstreams[provider].simulated);
}

/**
 * env.json's content. `host` replaces 127.0.0.1 in the endpoints: inside SAM's containers that address is
 * the container itself (Docker Desktop resolves host.docker.internal to the host). `apiKeys`: the key of
 * each real upstream (realUpstreams), which the runtime file does not hold.
 */
export function samEnvVars(
  template: CfnTemplate,
  runtime: LocalStackRuntime,
  host: string,
  apiKeys: Partial<Record<ProviderName, string>> = {},
): Record<string, Record<string, string>> {
  const rehost = (url: string) => url.replace(/\/\/(127\.0\.0\.1|localhost)(?=[:/]|$)/, `//${host}`);
  const upstreams = Object.fromEntries(
    PROVIDER_NAMES.map((provider): [ProviderName, UpstreamEndpoint] => {
      const { platform, baseUrl, simulated } = runtime.endpoints.upstreams[provider];
      const apiKey = simulated ? simulatorApiKey(provider) : apiKeys[provider];
      if (!apiKey)
        throw new Error(`the stack uses the real ${provider} upstream: ${providerEnv(provider).apiKey.name} is needed`);
      return [provider, { platform, baseUrl: rehost(baseUrl), apiKey }];
    }),
  ) as Record<ProviderName, UpstreamEndpoint>;
  const local = localHandlerEnvironment(runtime.names, {
    dynamodb: rehost(runtime.endpoints.dynamodb),
    s3AndSqs: rehost(runtime.endpoints.s3),
    sfn: rehost(runtime.endpoints.sfn),
    upstreams,
    stateMachineArn: localStateMachineArn(runtime.names),
    // Only the webhook consumer reads it, and no queue event source runs under SAM.
    webhookQueueUrl: '',
  });
  return Object.fromEntries(
    Object.entries(functionVariables(template)).map(([logicalId, variables]) => {
      const values: Record<string, string> = {};
      for (const [name, value] of Object.entries(variables)) {
        if (LAMBDA_RESERVED_VARIABLES.includes(name)) continue;
        // The layer's ffmpeg (/opt/ffmpeg, as deployed) is in SAM's container; the local stack's path is not.
        const localValue = name === ENV.ffmpegPath.name ? ENV.ffmpegPath.default : local[name];
        if (localValue !== undefined) values[name] = localValue;
        // A reference to the AWS deployment (a secret ARN, the CloudFront domain: unset means S3 presigned URLs).
        else if (typeof value !== 'string') values[name] = '';
      }
      return [logicalId, values];
    }),
  );
}

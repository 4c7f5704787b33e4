/**
 * The environment the handlers read at load when they run in-process against the local emulators: the
 * same variables CDK gives them in AWS (lib/cdk/service-functions.ts), pointed at local endpoints. Shared
 * by the local stack's two processes (API and workflow) and the bench's lifecycle probe, which runs the
 * same handlers its own way.
 */
import type { physicalNames } from '../../functions/adapters/resources.js';
import { resourceEnvironment } from '../../functions/adapters/resources.js';
import { ENV, providerEnv } from '../../functions/adapters/config.js';
import { METRICS_SERVICE } from '../../functions/core/metric-names.js';
import { PROVIDER_NAMES } from '../../functions/core/providers.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';

export interface LocalHandlerEndpoints {
  dynamodb: string;
  /** fauxqs serves S3 and SQS on one endpoint. */
  s3AndSqs: string;
  sfn: string;
  upstreamBaseUrl: string;
  upstreamApiKey: string;
  stateMachineArn: string;
  webhookQueueUrl: string;
}

export function localHandlerEnvironment(
  names: ReturnType<typeof physicalNames>,
  endpoints: LocalHandlerEndpoints,
): Record<string, string> {
  return {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3AndSqs,
    AWS_ENDPOINT_URL_SQS: endpoints.s3AndSqs,
    AWS_ENDPOINT_URL_SFN: endpoints.sfn,
    [ENV.s3ForcePathStyle.name]: 'true',
    [ENV.stateMachineArn.name]: endpoints.stateMachineArn,
    // Every provider is simulated by the one local upstream (lib/local/upstream-simulator.ts).
    ...Object.fromEntries(
      PROVIDER_NAMES.flatMap((provider) => [
        [providerEnv(provider).baseUrl.name, endpoints.upstreamBaseUrl],
        [providerEnv(provider).apiKey.name, endpoints.upstreamApiKey],
      ]),
    ),
    POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
    [ENV.webhookQueueUrl.name]: endpoints.webhookQueueUrl,
    // Developers receive webhooks on 127.0.0.1; every other private range stays refused.
    [ENV.allowLoopbackTargets.name]: 'true',
    ...resourceEnvironment(names),
  };
}

/**
 * Sets the handlers' environment in this process, before any handler loads. Metrics are CloudWatch EMF
 * log lines: noise on a terminal, so off locally; logs default to WARN unless `extra` says otherwise.
 */
export function applyLocalHandlerEnvironment(
  names: ReturnType<typeof physicalNames>,
  endpoints: LocalHandlerEndpoints,
  extra: Record<string, string> = {},
): void {
  Object.assign(process.env, {
    ...localHandlerEnvironment(names, endpoints),
    POWERTOOLS_METRICS_DISABLED: 'true',
    ...extra,
  });
  process.env['POWERTOOLS_LOG_LEVEL'] ??= 'WARN';
}

/**
 * The environment the handlers read at load when they run in-process against the local emulators: the
 * same variables CDK gives them in AWS (lib/cdk/service-functions.ts), pointed at local endpoints. Shared
 * by the local stack's two processes (API and workflow) and the bench's lifecycle probe, which runs the
 * same handlers its own way.
 */
import type { physicalNames } from '../resource-definitions.js';
import { resourceEnvironment, WEBHOOK_QUEUE } from '../resource-definitions.js';
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
    S3_FORCE_PATH_STYLE: 'true',
    STATE_MACHINE_ARN: endpoints.stateMachineArn,
    ARK_BASE_URL: endpoints.upstreamBaseUrl,
    ARK_API_KEY: endpoints.upstreamApiKey,
    POWERTOOLS_SERVICE_NAME: 'video-generation',
    [WEBHOOK_QUEUE.envVar]: endpoints.webhookQueueUrl,
    // Developers receive webhooks on 127.0.0.1; every other private range stays refused.
    ALLOW_LOOPBACK_TARGETS: 'true',
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

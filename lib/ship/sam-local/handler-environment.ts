/**
 * The environment the handlers read at load when they run in-process against the local emulators: the
 * same variables CDK gives them in AWS (lib/ship/cdk/service-functions.ts), pointed at local endpoints. Shared
 * by the local stack's two processes (API and workflow) and the bench's lifecycle probe, which runs the
 * same handlers its own way.
 */
import type { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import { resourceEnvironment } from '../../../functions/adapters/runtime/resources.js';
import { ENV, providerEnv } from '../../../functions/adapters/runtime/config.js';
import { METRICS_SERVICE } from '../../../functions/core/metric-names.js';
import { PROVIDERS, PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import { FFMPEG_BINARY } from '../build/ffmpeg-binary.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';

/** Where one provider's adapter goes: its simulator or the real upstream (lib/dev/local/upstreams.ts). */
export interface UpstreamEndpoint {
  platform: string;
  baseUrl: string;
  apiKey: string;
}

/** Where the top-up functions find Alipay: its simulator, or the real gateway with our app's keys. */
export interface PaymentEndpoint {
  gatewayUrl: string;
  appId: string;
  appPrivateKey: string;
  alipayPublicKey: string;
}

/** What a run without payments gets: enough for the top-up functions to load, nothing they could reach. */
const NO_PAYMENTS: PaymentEndpoint = {
  gatewayUrl: 'http://alipay.invalid/gateway.do',
  appId: 'no-alipay-app',
  appPrivateKey: 'none',
  alipayPublicKey: 'none',
};

export interface LocalHandlerEndpoints {
  dynamodb: string;
  /** fauxqs serves S3 and SQS on one endpoint. */
  s3AndSqs: string;
  sfn: string;
  upstreams: Record<ProviderName, UpstreamEndpoint>;
  stateMachineArn: string;
  webhookQueueUrl: string;
  /** Alipay; unset: placeholders (payments unreachable). */
  payments?: PaymentEndpoint;
}

/** Every provider at one endpoint, each on its default platform: for a stand-in upstream or placeholders. */
export function everyProviderAt(baseUrl: string, apiKey: string): Record<ProviderName, UpstreamEndpoint> {
  return Object.fromEntries(
    PROVIDER_NAMES.map((provider) => [provider, { platform: PROVIDERS[provider].defaultPlatform, baseUrl, apiKey }]),
  ) as Record<ProviderName, UpstreamEndpoint>;
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
    // Every provider variable, always: a developer's own ARK_API_KEY (or secret ARN, which would send the
    // handlers to Secrets Manager) in the shell never reaches a simulated run.
    ...Object.fromEntries(
      PROVIDER_NAMES.flatMap((provider) => {
        const env = providerEnv(provider);
        const upstream = endpoints.upstreams[provider];
        return [
          [env.platform.name, upstream.platform],
          [env.baseUrl.name, upstream.baseUrl],
          [env.apiKey.name, upstream.apiKey],
          [env.apiKeySecretArn.name, ''],
        ];
      }),
    ),
    POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
    [ENV.webhookQueueUrl.name]: endpoints.webhookQueueUrl,
    ...paymentVariables(endpoints.payments ?? NO_PAYMENTS),
    // Developers receive webhooks on 127.0.0.1; every other private range stays refused.
    [ENV.allowLoopbackTargets.name]: 'true',
    // The binary the Lambda layer ships (/opt/ffmpeg in AWS): the same file of the same npm package.
    [ENV.ffmpegPath.name]: FFMPEG_BINARY,
    ...resourceEnvironment(names),
  };
}

/** Alipay's variables, always all of them: a developer's own keys in the shell never reach a simulated run. */
function paymentVariables(payments: PaymentEndpoint): Record<string, string> {
  return {
    [ENV.alipayGatewayUrl.name]: payments.gatewayUrl,
    [ENV.alipayAppId.name]: payments.appId,
    [ENV.alipayAppPrivateKey.name]: payments.appPrivateKey,
    [ENV.alipayAppPrivateKeySecretArn.name]: '',
    [ENV.alipayPublicKey.name]: payments.alipayPublicKey,
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

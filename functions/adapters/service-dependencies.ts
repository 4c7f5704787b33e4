/**
 * Composition root: builds each adapter once per process from the environment (read at cold start,
 * failing fast on anything missing) and hands use cases their ports.
 */
import { TABLES, VIDEO_BUCKET } from '../../lib/resource-definitions.js';
import { parsePollSchedule } from '../core/poll-schedule.js';
import { ArkVideoProvider } from './ark-video-provider.js';
import { dynamoDocumentClient, s3Client, sfnClient } from './aws-clients.js';
import { MissingConfigError, optionalEnv, positiveIntegerEnv, requireEnv } from './config.js';
import { DnsOutboundUrlPolicy } from './dns-url-policy.js';
import type { AddressPolicy } from './public-address-guard.js';
import { DynamoDbAccountRepository, DynamoDbApiKeyRepository } from './dynamodb-accounts.js';
import { DynamoDbModelCatalog } from './dynamodb-model-catalog.js';
import { DynamoDbRateLimiter } from './dynamodb-rate-limiter.js';
import { DynamoDbTaskRepository } from './dynamodb-task-repository.js';
import type { VideoUrlSigner } from '../core/ports/video-storage.js';
import { CloudFrontUrlSigner } from './cloudfront-url-signer.js';
import { HttpToS3VideoTransfer, S3PresignedUrlSigner } from './s3-video-storage.js';
import { cachedSecret } from './secret-value.js';
import { MeteredVideoProvider } from './metered-video-provider.js';
import { metrics } from './metrics.js';

const meter = (provider: ArkVideoProvider) => new MeteredVideoProvider(provider, metrics);
import { StepFunctionsTaskWorkflow } from './sfn-task-workflow.js';

const DEFAULT_MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;

export function taskRepository() {
  return new DynamoDbTaskRepository(dynamoDocumentClient(), {
    tasks: requireEnv(TABLES.tasks.envVar),
    accounts: requireEnv(TABLES.accounts.envVar),
    apiKeys: requireEnv(TABLES.apiKeys.envVar),
  });
}

export function authenticationDependencies() {
  const db = dynamoDocumentClient();
  return {
    keys: new DynamoDbApiKeyRepository(db, requireEnv(TABLES.apiKeys.envVar)),
    limiter: new DynamoDbRateLimiter(db, requireEnv(TABLES.rateLimits.envVar)),
    defaultRatePerSecond: positiveIntegerEnv('DEFAULT_RATE_LIMIT_PER_SECOND', 10),
  };
}

export function accountRepository() {
  return new DynamoDbAccountRepository(dynamoDocumentClient(), requireEnv(TABLES.accounts.envVar));
}

export function modelCatalog() {
  return new DynamoDbModelCatalog(dynamoDocumentClient(), requireEnv(TABLES.models.envVar));
}

export function taskWorkflow() {
  return new StepFunctionsTaskWorkflow(sfnClient(), requireEnv('STATE_MACHINE_ARN'));
}

/** CloudFront-signed URLs in AWS (they outlive role credentials); S3 presigned URLs where no CDN is configured. */
export function videoUrlSigner(): VideoUrlSigner {
  const domain = optionalEnv('CLOUDFRONT_DOMAIN', '');
  if (!domain) return new S3PresignedUrlSigner(s3Client(), requireEnv(VIDEO_BUCKET.envVar));
  return new CloudFrontUrlSigner({
    domain,
    keyPairId: requireEnv('CLOUDFRONT_KEY_PAIR_ID'),
    privateKey: cachedSecret(requireEnv('CLOUDFRONT_PRIVATE_KEY_SECRET_ARN')),
  });
}

export function videoTransfer() {
  return new HttpToS3VideoTransfer(s3Client(), requireEnv(VIDEO_BUCKET.envVar), {
    maxBytes: positiveIntegerEnv('MAX_VIDEO_BYTES', DEFAULT_MAX_VIDEO_BYTES),
    timeoutMs: positiveIntegerEnv('VIDEO_DOWNLOAD_TIMEOUT_MS', 10 * 60 * 1000),
  });
}

/** Upstream adapters by provider name; `requestTimeoutMs` short where a client is waiting. */
export function videoProviders(requestTimeoutMs = 10_000) {
  return {
    ark: meter(
      new ArkVideoProvider({
        baseUrl: requireEnv('ARK_BASE_URL'),
        apiKey: arkApiKey(),
        requestTimeoutMs,
      }),
    ),
  };
}

/** The Ark key: from Secrets Manager in AWS (ARK_API_KEY_SECRET_ARN), or plain where there is none (local). */
function arkApiKey(): string | (() => Promise<string>) {
  const secretArn = optionalEnv('ARK_API_KEY_SECRET_ARN', '');
  return secretArn ? cachedSecret(secretArn) : requireEnv('ARK_API_KEY');
}

/** ALLOW_LOOPBACK_TARGETS=true only in the local runtime: in AWS every non-public range is refused. */
export function outboundAddressPolicy(): AddressPolicy {
  const text = optionalEnv('ALLOW_LOOPBACK_TARGETS', 'false');
  if (text !== 'true' && text !== 'false') {
    throw new MissingConfigError(`environment variable ALLOW_LOOPBACK_TARGETS must be true or false (got "${text}")`);
  }
  return { allowLoopback: text === 'true' };
}

export function outboundUrlPolicy() {
  return new DnsOutboundUrlPolicy(outboundAddressPolicy());
}

/** How long a status query waits for the upstream before answering from what it has. */
export const LIVE_QUERY_TIMEOUT_MS = 2_000;

/** Seconds between upstream polls: growing, the last value repeating (see poll-schedule.ts). */
export function pollSchedule() {
  return parsePollSchedule(optionalEnv('POLL_SCHEDULE_SECONDS', '10,15,20,30,45,60'));
}

/**
 * Composition root: builds each adapter once per process from the environment (read at cold start,
 * failing fast on anything missing) and hands use cases their ports.
 */
import { TABLES, VIDEO_BUCKET } from '../../lib/resource-definitions.js';
import { parsePollSchedule } from '../core/poll-schedule.js';
import { ArkVideoProvider } from './ark-video-provider.js';
import { dynamoDocumentClient, s3Client, sfnClient } from './aws-clients.js';
import { optionalEnv, positiveIntegerEnv, requireEnv } from './config.js';
import { DynamoDbAccountRepository, DynamoDbApiKeyRepository } from './dynamodb-accounts.js';
import { DynamoDbModelCatalog } from './dynamodb-model-catalog.js';
import { DynamoDbRateLimiter } from './dynamodb-rate-limiter.js';
import { DynamoDbTaskRepository } from './dynamodb-task-repository.js';
import { HttpToS3VideoTransfer, S3PresignedUrlSigner } from './s3-video-storage.js';
import { StepFunctionsWorkflowStarter } from './sfn-workflow-starter.js';

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

export function workflowStarter() {
  return new StepFunctionsWorkflowStarter(sfnClient(), requireEnv('STATE_MACHINE_ARN'));
}

export function videoUrlSigner() {
  return new S3PresignedUrlSigner(s3Client(), requireEnv(VIDEO_BUCKET.envVar));
}

export function videoTransfer() {
  return new HttpToS3VideoTransfer(s3Client(), requireEnv(VIDEO_BUCKET.envVar), {
    maxBytes: positiveIntegerEnv('MAX_VIDEO_BYTES', DEFAULT_MAX_VIDEO_BYTES),
    timeoutMs: positiveIntegerEnv('VIDEO_DOWNLOAD_TIMEOUT_MS', 10 * 60 * 1000),
  });
}

export function videoProviders() {
  return {
    ark: new ArkVideoProvider({ baseUrl: requireEnv('ARK_BASE_URL'), apiKey: requireEnv('ARK_API_KEY') }),
  };
}

/** Seconds between upstream polls: growing, the last value repeating (see poll-schedule.ts). */
export function pollSchedule() {
  return parsePollSchedule(optionalEnv('POLL_SCHEDULE_SECONDS', '10,15,20,30,45,60'));
}

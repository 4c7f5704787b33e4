/**
 * Composition root for what lives in DynamoDB: each adapter built once per process from the environment
 * (read at cold start, failing fast on anything missing). The other roots (workflow-, storage-,
 * provider-, url-policy-dependencies.ts) are separate modules so that a function bundles only the SDK
 * clients it uses.
 */
import { TABLES } from '../../lib/resource-definitions.js';
import { CachedApiKeyRepository } from './cached-api-keys.js';
import { nonNegativeIntegerEnv, positiveIntegerEnv, requireEnv } from './config.js';
import { DynamoDbAccountRepository, DynamoDbApiKeyRepository } from './dynamodb-accounts.js';
import { dynamoDocumentClient, dynamoItemReader } from './dynamodb-client.js';
import { DynamoDbModelCatalog } from './dynamodb-model-catalog.js';
import { DynamoDbRateLimiter } from './dynamodb-rate-limiter.js';
import { DynamoDbTaskRepository } from './dynamodb-task-repository.js';

export function taskRepository() {
  return new DynamoDbTaskRepository(
    dynamoDocumentClient(),
    {
      tasks: requireEnv(TABLES.tasks.envVar),
      accounts: requireEnv(TABLES.accounts.envVar),
      apiKeys: requireEnv(TABLES.apiKeys.envVar),
    },
    dynamoItemReader(),
  );
}

let keys: CachedApiKeyRepository | undefined;

/** One per process: the submit's re-read of a key refreshes the copy authentication uses. */
export function apiKeyRepository() {
  keys ??= new CachedApiKeyRepository(
    new DynamoDbApiKeyRepository(dynamoItemReader(), requireEnv(TABLES.apiKeys.envVar)),
    { ttlMs: nonNegativeIntegerEnv('API_KEY_CACHE_SECONDS', 5) * 1000 },
  );
  return keys;
}

export function authenticationDependencies() {
  const db = dynamoDocumentClient();
  return {
    keys: apiKeyRepository(),
    limiter: new DynamoDbRateLimiter(db, requireEnv(TABLES.rateLimits.envVar)),
    defaultRatePerSecond: positiveIntegerEnv('DEFAULT_RATE_LIMIT_PER_SECOND', 10),
  };
}

export function accountRepository() {
  return new DynamoDbAccountRepository(dynamoItemReader(), requireEnv(TABLES.accounts.envVar));
}

export function modelCatalog() {
  return new DynamoDbModelCatalog(dynamoDocumentClient(), requireEnv(TABLES.models.envVar));
}

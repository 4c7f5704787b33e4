/**
 * Composition root for what lives in DynamoDB: each adapter built once per process from the environment
 * (read at cold start, failing fast on anything missing). The other roots (workflow-, storage-,
 * provider-, url-policy-dependencies.ts) are separate modules so that a function bundles only the SDK
 * clients it uses.
 */
import { TABLES } from '../../lib/resource-definitions.js';
import { positiveIntegerEnv, requireEnv } from './config.js';
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

export function authenticationDependencies() {
  const db = dynamoDocumentClient();
  return {
    keys: new DynamoDbApiKeyRepository(dynamoItemReader(), requireEnv(TABLES.apiKeys.envVar)),
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

/**
 * Composition root for what lives in DynamoDB: each adapter built once per process from the environment.
 * The other roots (workflow-, storage-, provider-, url-policy-dependencies.ts) are separate modules so
 * that a function bundles only the SDK clients it uses.
 */
import { readEnv } from './config.js';
import { DynamoDbAccountRepository, DynamoDbApiKeyRepository } from './dynamodb-accounts.js';
import { dynamoDocumentClient } from './dynamodb-client.js';
import { DynamoDbModelCatalog } from './dynamodb-model-catalog.js';
import { DynamoDbRateLimiter } from './dynamodb-rate-limiter.js';
import { DynamoDbTaskRepository } from './dynamodb-task-repository.js';

export function taskRepository() {
  return new DynamoDbTaskRepository(dynamoDocumentClient(), {
    tasks: readEnv('tasksTable'),
    accounts: readEnv('accountsTable'),
    apiKeys: readEnv('apiKeysTable'),
  });
}

export function apiKeyRepository() {
  return new DynamoDbApiKeyRepository(dynamoDocumentClient(), readEnv('apiKeysTable'));
}

export function authenticationDependencies() {
  return {
    keys: apiKeyRepository(),
    limiter: new DynamoDbRateLimiter(dynamoDocumentClient(), readEnv('rateLimitsTable')),
    defaultRatePerSecond: readEnv('defaultRateLimitPerSecond'),
  };
}

export function accountRepository() {
  return new DynamoDbAccountRepository(dynamoDocumentClient(), readEnv('accountsTable'));
}

export function modelCatalog() {
  return new DynamoDbModelCatalog(dynamoDocumentClient(), readEnv('modelsTable'));
}

/**
 * Composition root for what lives in DynamoDB: each adapter built once per process from the environment.
 * The other roots (workflow-, storage-, provider-, url-policy-dependencies.ts) are separate modules so
 * that a function bundles only the SDK clients it uses.
 */
import { providerEnv, readEnv, readVariable } from '../runtime/config.js';
import { PROVIDER_NAMES } from '../../providers/registry.js';
import { DynamoDbAccountRepository, DynamoDbApiKeyRepository } from '../dynamodb/accounts.js';
import { dynamoDocumentClient } from '../dynamodb/client.js';
import { DynamoDbModelCatalog } from '../dynamodb/model-catalog.js';
import { DynamoDbRateLimiter } from '../dynamodb/rate-limiter.js';
import { DynamoDbTaskRepository } from '../dynamodb/task-repository.js';
import { DynamoDbTaskList } from '../dynamodb/task-list.js';
import { DynamoDbIdempotencyStore } from '../dynamodb/idempotency.js';
import { DynamoDbLedger } from '../dynamodb/ledger.js';

export function taskRepository() {
  return new DynamoDbTaskRepository(dynamoDocumentClient(), {
    tasks: readEnv('tasksTable'),
    accounts: readEnv('accountsTable'),
    apiKeys: readEnv('apiKeysTable'),
    ledger: readEnv('ledgerTable'),
    idempotency: readEnv('idempotencyTable'),
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
  // Each provider's platform: a model retired on it is not offered here (docs/api-contract.md, "Models that come and go").
  const platforms = Object.fromEntries(PROVIDER_NAMES.map((name) => [name, readVariable(providerEnv(name).platform)]));
  const cacheSeconds = readEnv('modelCatalogCacheSeconds');
  return new DynamoDbModelCatalog(dynamoDocumentClient(), readEnv('modelsTable'), cacheSeconds, Date.now, platforms);
}

export function idempotencyStore() {
  return new DynamoDbIdempotencyStore(dynamoDocumentClient(), readEnv('idempotencyTable'));
}

export function ledgerRepository() {
  return new DynamoDbLedger(dynamoDocumentClient(), readEnv('ledgerTable'));
}

export function taskList() {
  return new DynamoDbTaskList(dynamoDocumentClient(), readEnv('tasksTable'));
}

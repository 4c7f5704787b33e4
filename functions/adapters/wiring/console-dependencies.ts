/** Composition root of the console routes (docs/console.md): each adapter built once per process from the environment. */
import { readEnv } from '../runtime/config.js';
import { dynamoDocumentClient } from '../dynamodb/client.js';
import { DynamoDbConsoleKeys } from '../dynamodb/console-keys.js';
import { DynamoDbConsoleUsers } from '../dynamodb/console-users.js';
import { DynamoDbMonthlySpend } from '../dynamodb/monthly-spend.js';
import { DynamoDbRedeemCodes } from '../dynamodb/redeem-codes.js';

export function consoleUsers() {
  return new DynamoDbConsoleUsers(dynamoDocumentClient(), {
    consoleUsers: readEnv('consoleUsersTable'),
    accounts: readEnv('accountsTable'),
  });
}

export function consoleKeys() {
  return new DynamoDbConsoleKeys(dynamoDocumentClient(), {
    apiKeys: readEnv('apiKeysTable'),
    accounts: readEnv('accountsTable'),
  });
}

/** What the key routes need: the store, the service's rate per key (shown for keys without one), the clock. */
export function keyDependencies() {
  return { keys: consoleKeys(), defaultRatePerSecond: readEnv('defaultRateLimitPerSecond'), now: () => new Date() };
}

export function monthlySpend() {
  return new DynamoDbMonthlySpend(dynamoDocumentClient(), readEnv('ledgerTable'));
}

export function redeemCodes() {
  return new DynamoDbRedeemCodes(dynamoDocumentClient(), {
    redeemCodes: readEnv('redeemCodesTable'),
    accounts: readEnv('accountsTable'),
    ledger: readEnv('ledgerTable'),
  });
}

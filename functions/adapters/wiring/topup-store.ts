/**
 * Composition root for the top-up orders alone (docs/money-and-ledger.md, "Top-ups"): what a list of them needs,
 * without Alipay's SDK (its bundle stays small; topup-dependencies.ts adds the gateway).
 */
import { dynamoDocumentClient } from '../dynamodb/client.js';
import { DynamoDbTopups } from '../dynamodb/topups.js';
import { readEnv } from '../runtime/config.js';

export function topupStore() {
  return new DynamoDbTopups(dynamoDocumentClient(), {
    topups: readEnv('topupsTable'),
    accounts: readEnv('accountsTable'),
    ledger: readEnv('ledgerTable'),
  });
}

/** Accounts and API keys in DynamoDB (read side used by every request); reads are consistent. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountRecord, AccountRepository, ApiKeyRecord, ApiKeyRepository } from '../../core/ports/accounts.js';
import { getItem } from './consistent-read.js';
import { readBalance } from './money-shards.js';

export class DynamoDbAccountRepository implements AccountRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The account, its balance the sum of its shards (money-shards.ts). */
  async get(accountId: string): Promise<AccountRecord | undefined> {
    const found = await readBalance(this.db, this.table, accountId);
    if (!found) return undefined;
    return { ...(found.item as unknown as AccountRecord), balance_units: Number(found.units) };
  }
}

export class DynamoDbApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return getItem(this.db, this.table, { key_hash: keyHash });
  }
}

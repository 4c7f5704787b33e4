/** Accounts and API keys in DynamoDB (read side used by every request); reads are consistent. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountRecord, AccountRepository, ApiKeyRecord, ApiKeyRepository } from '../../core/ports/accounts.js';
import { getItem } from './consistent-read.js';

export class DynamoDbAccountRepository implements AccountRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  get(accountId: string): Promise<AccountRecord | undefined> {
    return getItem(this.db, this.table, { account_id: accountId });
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

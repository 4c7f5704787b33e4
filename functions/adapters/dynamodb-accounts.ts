/** Accounts and API keys in DynamoDB (read side used by every request); reads are consistent. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountRecord, AccountRepository, ApiKeyRecord, ApiKeyRepository } from '../core/ports/accounts.js';

export class DynamoDbAccountRepository implements AccountRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(accountId: string): Promise<AccountRecord | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { account_id: accountId }, ConsistentRead: true }),
    );
    return Item as AccountRecord | undefined;
  }
}

export class DynamoDbApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { key_hash: keyHash }, ConsistentRead: true }),
    );
    return Item as ApiKeyRecord | undefined;
  }
}

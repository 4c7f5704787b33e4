/** Accounts and API keys in DynamoDB (read side used by every request). */
import type { AccountRecord, AccountRepository, ApiKeyRecord, ApiKeyRepository } from '../core/ports/accounts.js';
import type { DynamoDbItemReader } from './dynamodb-item-reader.js';

export class DynamoDbAccountRepository implements AccountRepository {
  constructor(
    private readonly reader: DynamoDbItemReader,
    private readonly table: string,
  ) {}

  async get(accountId: string): Promise<AccountRecord | undefined> {
    return (await this.reader.get(this.table, { account_id: accountId })) as AccountRecord | undefined;
  }
}

export class DynamoDbApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly reader: DynamoDbItemReader,
    private readonly table: string,
  ) {}

  /** Always the stored record: consistent (every read of the reader is); copies are cached-api-keys.ts's. */
  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return (await this.reader.get(this.table, { key_hash: keyHash })) as ApiKeyRecord | undefined;
  }
}

export interface AccountRecord {
  account_id: string;
  balance_units: number;
  created_at: string;
}

export type ApiKeyStatus = 'active' | 'disabled' | 'deleted';

export interface ApiKeyRecord {
  key_hash: string;
  key_id: string;
  account_id: string;
  /** `deleted`: revoked for good by its owner; the record stays, so its tasks and ledger entries keep their key. */
  status: ApiKeyStatus;
  /** The prefix and last four characters (keyHint); absent on keys made before it was stored. */
  key_hint?: string;
  deleted_at?: string;
  /** Spend cap in units; absent means no cap (docs/money-and-ledger.md, "Key quotas"). */
  quota_units?: number;
  /** What the cap still allows, decremented in the submit transaction; absent when no cap. */
  quota_remaining_units?: number;
  spent_units: number;
  /** Requests per second; absent means the service default (docs/api-contract.md, "Rate limits"). */
  rate_per_second?: number;
  created_at: string;
  /** The owner's label for the key (docs/console.md). */
  name?: string;
  /** When the key last paid for a task (written by the charge). */
  last_used_at?: string;
}

export interface AccountRepository {
  get(accountId: string): Promise<AccountRecord | undefined>;
}

export interface ApiKeyRepository {
  /** The stored record (a consistent read): never a copy, so a disabled key is refused at once. */
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
}

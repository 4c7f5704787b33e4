import { namedError } from '../named-error.js';
import type { ApiKeyRecord } from './accounts.js';

/** A console sign-in (a Cognito user, by its `sub`) and the account it acts for. No password or token. */
export interface ConsoleUser {
  sub: string;
  account_id: string;
  email?: string;
  created_at: string;
}

export interface ConsoleUserRepository {
  find(sub: string): Promise<ConsoleUser | undefined>;
  /**
   * Opens a new account (balance 0) for the user and links it, in one transaction; when another request
   * linked the user first, answers that link (and opens nothing).
   */
  openAccount(user: ConsoleUser): Promise<ConsoleUser>;
}

/** What the console may change on a key; `quotaUnits: null` removes the cap. */
export interface KeyChange {
  name?: string;
  status?: 'active' | 'disabled';
  quotaUnits?: number | null;
}

/** A key with the same hash is stored already (the admin CLI's fixed local key, made again). */
export class KeyExistsError extends namedError('KeyExistsError') {}

export interface ConsoleKeyStore {
  /** The account's keys, oldest first. */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /**
   * Stores a new key, checked in the same transaction that its account exists and is not disabled (else a
   * ForbiddenError); KeyExistsError when the key is stored already.
   */
  create(record: ApiKeyRecord): Promise<void>;
  /**
   * Applies the change to the stored key; undefined when the key is gone. Enabling checks the account too. A
   * deleted key is never changed: it is answered as stored.
   */
  update(record: ApiKeyRecord, change: KeyChange): Promise<ApiKeyRecord | undefined>;
  /** Marks the key deleted at `now`, for good (the record stays); undefined when the key is gone. */
  remove(record: ApiKeyRecord, now: Date): Promise<ApiKeyRecord | undefined>;
}

/** An account's money this month, from its ledger. */
export interface MonthlySpend {
  /** Net charges (charges less refunds) and the number of charges since `since` (ISO). */
  since(accountId: string, since: string): Promise<{ spentUnits: number; charges: number }>;
}

export type RedeemOutcome =
  /** `redeemedBefore`: this account had redeemed it already, at that time; nothing was added now. */
  | { kind: 'redeemed'; amountUnits: number; balanceUnits: number; redeemedBefore?: string }
  | { kind: 'unknown' }
  | { kind: 'used' }
  | { kind: 'expired' }
  /** The balance would pass MAX_BALANCE_UNITS. */
  | { kind: 'too-large' };

export interface RedeemCodeStore {
  /**
   * Marks the code redeemed by the account, adds its amount to the balance and writes the ledger entry
   * `redeem:<code id>`, in one transaction. A code the same account redeemed before answers `redeemed`
   * again without adding anything (a retried click).
   */
  redeem(accountId: string, codeHash: string, now: Date): Promise<RedeemOutcome>;
}

/** The account's webhook signing secret, as its owner manages it. */
export interface WebhookSecretAdmin {
  /** The current secret, created on first use. */
  currentSecret(accountId: string): Promise<string>;
  /** A new secret; the previous one keeps signing until `previousUntil`. */
  rotate(accountId: string, now: Date): Promise<{ secret: string; previousUntil: string | null }>;
  /** The previous secret's end of overlap, when one still signs. */
  previousUntil(accountId: string, now: Date): Promise<string | null>;
}

/**
 * The console's caller (docs/console.md). Primary course: the gateway verified the Cognito token (API Gateway's JWT
 * authorizer; the local gateway the same); take only an access token; find the user's account by `sub`; a
 * user signing in for the first time gets a new account with a zero balance.
 */
import { randomUUID } from 'node:crypto';
import { AuthenticationError } from '../../api-error.js';
import type { ConsoleUserRepository } from '../../ports/console.js';

export interface ConsoleCaller {
  accountId: string;
  sub: string;
}

export interface ConsoleCallerDeps {
  users: ConsoleUserRepository;
  now: () => Date;
  newAccountId?: () => string;
}

/** `claims`: the verified token's claims as API Gateway passes them (strings), or undefined. */
export async function consoleCaller(
  claims: Record<string, string | undefined> | undefined,
  deps: ConsoleCallerDeps,
): Promise<ConsoleCaller> {
  const sub = claims?.['sub'];
  // An ID token also verifies against the same pool and client: the API takes access tokens only.
  if (!sub || claims['token_use'] !== 'access') {
    throw new AuthenticationError('sign in again: the console API takes a Cognito access token');
  }
  const user =
    (await deps.users.find(sub)) ??
    (await deps.users.openAccount({
      sub,
      account_id: (deps.newAccountId ?? newAccountId)(),
      created_at: deps.now().toISOString(),
    }));
  return { accountId: user.account_id, sub };
}

function newAccountId(): string {
  return `acct_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
}

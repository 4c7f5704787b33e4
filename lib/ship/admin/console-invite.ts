/**
 * Console users made by an operator rather than by self sign-up: `admin account:invite` (an email invited to
 * an existing account) and the local stack's demo user. The user is made in the Cognito user pool
 * (AdminCreateUser; email is the user name) and its `sub` linked to the account in the consoleUsers table,
 * which is how the console API finds the account of a signed-in user. No password is stored anywhere of ours.
 */
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import type { AttributeType, CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AdminError, TargetError } from './errors.js';
import { runtimeFile } from './target.js';

export interface ConsoleUserPool {
  client: CognitoIdentityProviderClient;
  userPoolId: string;
}

/**
 * Invites `email`: a new user whose first sign-in must set a password (NEW_PASSWORD_REQUIRED). With a
 * `temporaryPassword` Cognito sends nothing (the caller shows it); without one Cognito makes one and emails it
 * (in AWS, from the pool's email configuration). Answers the new user's `sub`.
 */
export async function inviteConsoleUser(
  pool: ConsoleUserPool,
  email: string,
  temporaryPassword?: string,
): Promise<{ sub: string }> {
  try {
    const { User } = await pool.client.send(
      new AdminCreateUserCommand({
        UserPoolId: pool.userPoolId,
        Username: email,
        UserAttributes: [
          { Name: 'email', Value: email },
          // Invited by an operator: the email is taken as verified (as AWS's console offers).
          { Name: 'email_verified', Value: 'true' },
        ],
        ...(temporaryPassword === undefined
          ? { DesiredDeliveryMediums: ['EMAIL'] }
          : { TemporaryPassword: temporaryPassword, MessageAction: 'SUPPRESS' }),
      }),
    );
    return { sub: subOf(User?.Attributes, email) };
  } catch (error) {
    if ((error as Error).name === 'UsernameExistsException') {
      throw new AdminError(`a console user with the email ${email} already exists`);
    }
    throw error;
  }
}

/**
 * The local demo user: made once with a permanent password (no challenge at its first sign-in); on every
 * start its password is set again to `password`, so that the one printed is always the one that works.
 */
export async function ensureConsoleUser(
  pool: ConsoleUserPool,
  email: string,
  password: string,
): Promise<{ sub: string; created: boolean }> {
  let sub: string;
  let created = false;
  try {
    const user = await pool.client.send(new AdminGetUserCommand({ UserPoolId: pool.userPoolId, Username: email }));
    sub = subOf(user.UserAttributes, email);
  } catch (error) {
    if ((error as Error).name !== 'UserNotFoundException') throw error;
    ({ sub } = await inviteConsoleUser(pool, email, password));
    created = true;
  }
  await pool.client.send(
    new AdminSetUserPasswordCommand({
      UserPoolId: pool.userPoolId,
      Username: email,
      Password: password,
      Permanent: true,
    }),
  );
  return { sub, created };
}

/**
 * A temporary password that meets Cognito's default policy (8+ characters, upper and lower case, a digit,
 * a symbol) and is easy to read out: `Vgs-` + 4 letters + 4 digits + `!`… e.g. `Vgs-kqmt-4821!`.
 */
export function temporaryPassword(): string {
  const letters = 'abcdefghjkmnpqrstuvwxyz';
  const pick = (alphabet: string, count: number) =>
    Array.from({ length: count }, () => alphabet[randomInt(alphabet.length)]).join('');
  return `Vgs-${pick(letters, 4)}-${pick('23456789', 4)}!`;
}

function subOf(attributes: AttributeType[] | undefined, email: string): string {
  const sub = attributes?.find((attribute) => attribute.Name === 'sub')?.Value;
  if (!sub) throw new Error(`Cognito answered no sub for ${email}`);
  return sub;
}

/** The user pool in AWS: the stack's `ConsoleUserPoolId` output (the region is AWS_REGION's, as for the tables). */
export const USER_POOL_VARIABLE = 'CONSOLE_USER_POOL_ID';

export interface ConsoleUserPoolTarget {
  userPoolId: string;
  /** The local Cognito's; undefined in AWS. */
  endpoint?: string;
  region?: string;
}

/**
 * Where the console's users are: in AWS the pool named by CONSOLE_USER_POOL_ID; locally the running stack's
 * cognito-local, from the file `npm start` writes (lib/ship/admin/target.ts finds the tables the same way).
 */
export function resolveConsoleUserPool(where: 'aws' | 'local', repositoryRoot: string): ConsoleUserPoolTarget {
  if (where === 'aws') {
    const userPoolId = process.env[USER_POOL_VARIABLE];
    if (!userPoolId) {
      throw new TargetError(
        `set ${USER_POOL_VARIABLE} to the console's user pool id (the stack's ConsoleUserPoolId output)`,
      );
    }
    return { userPoolId };
  }
  const runtime = JSON.parse(
    readFileSync(runtimeFile(resolve(repositoryRoot, process.env['DATA_DIR'] ?? '.data')), 'utf8'),
  ) as { cognito?: { endpoint: string; region: string; userPoolId: string } };
  if (!runtime.cognito) {
    throw new TargetError('the running local stack has no console sign-in: restart it with `npm start`');
  }
  return runtime.cognito;
}

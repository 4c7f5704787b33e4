/** account:invite: a console user (Cognito) linked to an existing account. */
import { REPOSITORY_ROOT } from '../../repository-root.js';
import type { Command } from '../cli/command.js';
import { AdminError } from '../errors.js';

export const CONSOLE_USER_COMMANDS: Record<string, Command> = {
  'account:invite': {
    args: '--account ID --email EMAIL',
    summary: 'invite an email to the console as a user of an existing account',
    details:
      'Makes the Cognito user (its first sign-in sets its own password) and links it to the account: it then\n' +
      "sees and manages that account's keys, tasks and money in the console. An email that has a console user\n" +
      'already is refused. Local stack: a temporary password is made and printed, alone on the last line (no\n' +
      'email is sent). AWS: Cognito emails the temporary password; set CONSOLE_USER_POOL_ID to the user pool id\n' +
      "(the stack's ConsoleUserPoolId output) besides TABLE_PREFIX, with AWS_REGION and credentials.",
    options: ['account', 'email'],
    async run(args, open, output) {
      const id = args.required('account');
      const email = args.required('email').toLowerCase();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254)
        args.fail('--email must be an email address');
      const { store, where, db, tables } = await open();
      const [invite, { linkConsoleUser }, { CognitoIdentityProviderClient }, localAws] = await Promise.all([
        import('../console-invite.js'),
        import('../../../../functions/adapters/dynamodb/console-users.js'),
        import('@aws-sdk/client-cognito-identity-provider'),
        import('../../sam-local/local-aws.js'),
      ]);
      const pool = invite.resolveConsoleUserPool(where, REPOSITORY_ROOT);
      if (!(await store.accountExists(id))) throw new AdminError(`account ${id} does not exist`);
      const client =
        pool.endpoint === undefined
          ? new CognitoIdentityProviderClient({})
          : new CognitoIdentityProviderClient({
              endpoint: pool.endpoint,
              region: pool.region ?? localAws.LOCAL_REGION,
              credentials: localAws.LOCAL_CREDENTIALS,
            });
      try {
        const password = where === 'local' ? invite.temporaryPassword() : undefined;
        const { sub } = await invite.inviteConsoleUser({ client, userPoolId: pool.userPoolId }, email, password);
        await linkConsoleUser(db, tables.consoleUsers, {
          sub,
          account_id: id,
          email,
          created_at: new Date().toISOString(),
        });
        if (password === undefined) {
          output.out(`invited ${email} to account ${id} (aws): Cognito emails a temporary password`);
        } else {
          output.err(`invited ${email} to account ${id} (local); temporary password (changed at the first sign-in):`);
          output.out(password);
        }
      } finally {
        client.destroy();
      }
    },
  },
};

/**
 * Operator CLI: `npm run --silent admin -- <command> [options]`. Acts on the running local stack, or on
 * AWS when TABLE_PREFIX (or the *_TABLE variables) and AWS credentials are set. Run `help` for usage.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InvalidAmountError } from '../functions/core/money.js';
import { AdminError, AdminStore } from '../lib/admin/admin-store.js';
import { resolveAdminTarget } from '../lib/admin/target.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../lib/local/local-aws.js';
import { REPOSITORY_ROOT } from '../lib/repository-root.js';

const USAGE = `Usage: npm run --silent admin -- <command> [options]

  account:create --id ID --balance YUAN            create an account with an opening balance
  key:create --account ID [--quota YUAN] [--rate N] create an API key (printed alone on the last line)
  key:disable --key bc_…                            disable a key (requests with it get 401)
  balance:topup --account ID --amount YUAN          add to an account's balance
  models:seed [--file PATH]                         write the model catalog (default lib/seed/model-catalog.json)
  webhook:secret --account ID                       the account's webhook signing secret (whsec_…, alone on the
                                                    last line), created if it has none
  webhook:rotate --account ID                       a new webhook secret (alone on the last line); the old one
                                                    keeps signing too for 24 h

Target: the running local stack (npm start), or AWS when TABLE_PREFIX (or ACCOUNTS_TABLE, …) is set.`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    id: { type: 'string' },
    balance: { type: 'string' },
    account: { type: 'string' },
    quota: { type: 'string' },
    rate: { type: 'string' },
    key: { type: 'string' },
    amount: { type: 'string' },
    file: { type: 'string' },
  },
});

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new AdminError(`--${name} is required`);
  return value;
}

async function run(command: string | undefined): Promise<void> {
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return;
  }
  const target = resolveAdminTarget(REPOSITORY_ROOT);
  const client =
    target.where === 'local'
      ? new DynamoDBClient({ endpoint: target.dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS })
      : new DynamoDBClient({});
  const store = new AdminStore(DynamoDBDocumentClient.from(client), target.tables);
  try {
    switch (command) {
      case 'account:create': {
        const balance = await store.createAccount(required('id'), required('balance'));
        console.log(`created account ${values.id} with ${balance} CNY (${target.where})`);
        break;
      }
      case 'key:create': {
        const rate = values.rate === undefined ? undefined : Number(values.rate);
        const { key, record } = await store.createKey({
          accountId: required('account'),
          ...(values.quota !== undefined ? { quotaYuan: values.quota } : {}),
          ...(rate !== undefined ? { ratePerSecond: rate } : {}),
        });
        const limits = [
          values.quota !== undefined ? `quota ${values.quota} CNY` : 'no quota',
          rate !== undefined ? `${rate} requests/s` : 'default rate limit',
        ].join(', ');
        console.error(
          `created ${record.key_id} for account ${record.account_id} (${limits}); shown once, store it now:`,
        );
        console.log(key);
        break;
      }
      case 'key:disable':
        await store.disableKey(required('key'));
        console.log('key disabled');
        break;
      case 'balance:topup': {
        const balance = await store.topUp(required('account'), required('amount'));
        console.log(`account ${values.account} balance: ${balance} CNY`);
        break;
      }
      case 'models:seed': {
        const file = values.file ?? join(REPOSITORY_ROOT, 'lib/seed/model-catalog.json');
        const count = await store.seedModels(JSON.parse(readFileSync(file, 'utf8')));
        console.log(`wrote ${count} models from ${file}`);
        break;
      }
      case 'webhook:secret': {
        const secret = await store.webhookSecret(required('account'));
        console.error(`webhook signing secret of account ${values.account} (Standard Webhooks, ${target.where}):`);
        console.log(secret);
        break;
      }
      case 'webhook:rotate': {
        const { secret, previousUntil } = await store.rotateWebhookSecret(required('account'));
        console.error(
          previousUntil
            ? `rotated; the previous secret also signs until ${previousUntil}. New secret:`
            : 'the account had no secret; created:',
        );
        console.log(secret);
        break;
      }
      default:
        throw new AdminError(`unknown command "${command}"\n\n${USAGE}`);
    }
  } finally {
    client.destroy();
  }
}

try {
  await run(positionals[0]);
} catch (error) {
  const known = error instanceof AdminError || error instanceof InvalidAmountError;
  console.error(`error: ${known ? error.message : (error as Error).stack}`);
  process.exitCode = known ? 2 : 1;
}

/**
 * The admin CLI's commands: each one's options (node:util parseArgs, strict), its help and its action.
 * Arguments are checked before anything is read or written, so a bad one costs one line on stderr and exit
 * code 2, never a stack trace, and needs no running stack. bin/admin.ts only hands it argv.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isWellFormedApiKey } from '../../../functions/core/api-key.js';
import {
  balanceToYuan,
  InvalidAmountError,
  MAX_BALANCE_UNITS,
  MAX_BALANCE_YUAN,
  unitsToYuan,
  unitsToYuanText,
  yuanToUnits,
} from '../../../functions/core/money.js';
import type { ApiKeyRecord } from '../../../functions/core/ports/accounts.js';
import type { UpstreamAccount } from '../../../functions/core/ports/upstream-capacity.js';
import { catalogVideoModel, upstreamAccountDefaults } from '../../../functions/providers/registry.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { optionSets, worstMargins } from './margins.js';
import type { OptionSet } from './margins.js';
import { readUpstreamPrices } from './upstream-cost.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import type { AdminStore } from './admin-store.js';
import { TOPUP_REQUEST_ID } from './request-id.js';
import { PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import { AdminError, TargetError, UsageError } from './errors.js';

export interface AdminOutput {
  /** Results (a created key or secret alone on its own line, for scripts). */
  out(line: string): void;
  /** Everything else: notes, errors. */
  err(line: string): void;
}

interface Session {
  store: AdminStore;
  where: 'aws' | 'local';
  db: DynamoDBDocumentClient;
  client: DynamoDBClient;
  tables: Record<TableId, string>;
}

interface Command {
  /** The command line after the name, e.g. `--account ID [--quota YUAN]`. */
  args: string;
  summary: string;
  /** More lines for `<command> --help`. */
  details?: string;
  /** Its options, all taking a value. */
  options?: readonly string[];
  /** Its options that take no value (`--dry-run`). */
  flags?: readonly string[];
  /** Takes the account id as a positional argument too (`account:show acme`). */
  accountPositional?: boolean;
  /** Checks the arguments, then calls `open` (which connects) and acts; a number is its exit code (else 0). */
  run(args: Arguments, open: () => Promise<Session>, output: AdminOutput): Promise<void | number>;
}

const MAX_YUAN_TEXT = MAX_BALANCE_YUAN.toLocaleString('en-US');
const DEFAULT_CATALOG = join(REPOSITORY_ROOT, 'lib/ship/seed/model-catalog.json');

/** An ISO 8601 date or time, as the catalog stores it (UTC, with milliseconds). */
function isoDate(option: string, text: string): string {
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text)
    ? Date.parse(text)
    : NaN;
  if (Number.isNaN(at)) throw new UsageError(`--${option} must be an ISO 8601 date such as 2027-01-31, not "${text}"`);
  return new Date(at).toISOString();
}

function readCatalog(file: string): { version: number; models: unknown[] } {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { version: number; models: unknown[] };
  } catch (error) {
    throw new UsageError(`cannot read the catalog ${file}: ${(error as Error).message}`);
  }
}

function marginText(set: OptionSet): string {
  const margin = set.priceUnits - set.costUnits;
  const percent = set.costUnits === 0 ? '' : ` (${Math.round((margin / set.costUnits) * 100)}%)`;
  return `${margin < 0 ? '-' : ''}${unitsToYuanText(Math.abs(margin))}${percent}`;
}
const PROGRAM = 'npm run --silent admin --';

const COMMANDS: Record<string, Command> = {
  'account:create': {
    args: '--id ID --balance YUAN',
    summary: 'create an account with an opening balance',
    options: ['id', 'balance'],
    async run(args, open, output) {
      const id = args.required('id');
      args.money('balance');
      const { store, where } = await open();
      const balance = await store.createAccount(id, args.required('balance'));
      output.out(`created account ${id} with ${balance} CNY (${where})`);
    },
  },
  'account:show': {
    args: 'ID',
    summary: 'the account: status, balance, number of keys, created',
    accountPositional: true,
    async run(args, open, output) {
      const id = args.account();
      const { account, keys } = await (await open()).store.showAccount(id);
      const stored = unitsToYuanText(account.balance_units);
      const shown = String(balanceToYuan(account.balance_units));
      const note = stored === shown ? '' : ` (past the ${MAX_YUAN_TEXT} CNY bound: the API shows ${shown})`;
      table(output, [
        ['account', account.account_id],
        ['status', account.status ?? 'active'],
        ['balance', `${stored} CNY${note}`],
        ['keys', `${keys.total} (${keys.active} active)`],
        ['created', account.created_at],
      ]);
    },
  },
  'account:disable': {
    args: 'ID',
    summary: 'disable the account: each of its keys gets 401 from its next request',
    details:
      "Authentication reads only the key, so this disables each of the account's keys, and marks the account so\n" +
      'that key:create and key:enable refuse it until account:enable. Balance and tasks are kept.',
    accountPositional: true,
    async run(args, open, output) {
      const id = args.account();
      const disabled = await (await open()).store.disableAccount(id);
      output.out(`account ${id} disabled (${disabled} key${disabled === 1 ? '' : 's'} disabled)`);
    },
  },
  'account:enable': {
    args: 'ID',
    summary: 'lift account:disable; its keys stay disabled until key:enable',
    accountPositional: true,
    async run(args, open, output) {
      const id = args.account();
      await (await open()).store.enableAccount(id);
      output.out(`account ${id} enabled (its keys are unchanged: key:enable the ones to use)`);
    },
  },
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
        import('./console-invite.js'),
        import('../../../functions/adapters/dynamodb/console-users.js'),
        import('@aws-sdk/client-cognito-identity-provider'),
        import('../sam-local/local-aws.js'),
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
  'balance:topup': {
    args: '--account ID --amount YUAN [--request-id ID]',
    summary: "add to an account's balance, at most once per request id",
    details:
      `The balance may not pass ${MAX_YUAN_TEXT} CNY: a top-up that would is refused and changes nothing.\n` +
      'Its ledger entry is topup:<request id>: run again with the same --request-id (after a timeout, say) and\n' +
      'it adds nothing more and says so. Without --request-id a new one (a UUID) is made and printed first.',
    options: ['account', 'amount', 'request-id'],
    async run(args, open, output) {
      const id = args.required('account');
      if (args.money('amount') <= 0) args.fail('--amount must be positive');
      const requestId = requestIdOf(args, output, 'top-up');
      const { balance, added } = await (await open()).store.topUp(id, args.required('amount'), requestId);
      output.out(
        added
          ? `account ${id} balance: ${balance} CNY`
          : `request id ${requestId} was already applied: nothing added; account ${id} balance: ${balance} CNY`,
      );
    },
  },
  'balance:adjust': {
    args: '--account ID --amount [-]YUAN --reason TEXT [--request-id ID]',
    summary: 'correct a balance (a ledger entry of type adjustment), at most once per request id',
    details:
      'A negative amount is written --amount=-5 and may not take the balance below zero; the reason is kept with\n' +
      'the entry adjustment:<request id>. Retried with the same --request-id it changes nothing more and says so.',
    options: ['account', 'amount', 'reason', 'request-id'],
    async run(args, open, output) {
      const id = args.required('account');
      const amount = args.required('amount');
      const magnitude = amount.startsWith('-') ? amount.slice(1) : amount;
      if (!/^\d/.test(magnitude)) args.fail('--amount must be an amount in yuan, negative to take away');
      if (args.moneyText('amount', magnitude) === 0) args.fail('--amount must not be zero');
      const reason = args.required('reason');
      if (reason.length > 500) args.fail('--reason must be at most 500 characters');
      const requestId = requestIdOf(args, output, 'adjustment');
      const { balance, added } = await (await open()).store.adjust(id, amount, reason, requestId);
      output.out(
        added
          ? `account ${id} balance: ${balance} CNY`
          : `request id ${requestId} was already applied: nothing changed; account ${id} balance: ${balance} CNY`,
      );
    },
  },
  'code:create': {
    args: '--amount YUAN [--count N] [--days D]',
    summary: 'make top-up codes a customer redeems once in the console (each code alone on a line)',
    details:
      'Each code adds --amount to the balance of the account that redeems it first, with a ledger entry\n' +
      "redeem:<code id> (type topup); it expires after --days (default 30). Only the codes' SHA-256 hashes are\n" +
      'stored: the printed codes are the only copy. --count: 1 to 1000 (default 1).',
    options: ['amount', 'count', 'days'],
    async run(args, open, output) {
      if (args.money('amount') <= 0) args.fail('--amount must be positive');
      const whole = (name: string, fallback: number, max: number) => {
        const text = args.optional(name);
        const value = text === undefined ? fallback : Number(text);
        if (!/^\d+$/.test(String(text ?? fallback)) || value < 1 || value > max) {
          throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
        }
        return value;
      };
      const count = whole('count', 1, 1000);
      const days = whole('days', 30, 3650);
      const { codes, expiresAt } = await (await open()).store.createRedeemCodes(args.required('amount'), count, days);
      output.err(`${count} code(s) of ${args.required('amount')} CNY, valid until ${expiresAt}:`);
      for (const code of codes) output.out(code);
    },
  },
  'ledger:verify': {
    args: '[--account ID]',
    summary: "check every account's balance (or one's) against the sum of its ledger entries (exit 1 on a mismatch)",
    details:
      'One line per account that differs, then a summary. Each account is judged on a quiet moment (read, summed,\n' +
      'read again); run it when no top-up or submit is under way for exact results. An account from before the\n' +
      'ledger differs by its old balance: ledger:backfill gives it an opening entry.',
    options: ['account'],
    async run(args, open, output) {
      const { accounts, mismatches } = await (await open()).store.verifyLedger(args.optional('account'));
      for (const account of mismatches) {
        const hint = account.opened ? '' : ` (no opening entry: ledger:backfill --account ${account.accountId})`;
        output.out(
          `mismatch: account ${account.accountId} balance ${unitsToYuanText(account.balanceUnits)} CNY, ` +
            `ledger ${unitsToYuanText(account.entriesUnits)} CNY over ${account.entries} entries, ` +
            `difference ${unitsToYuanText(account.balanceUnits - account.entriesUnits)} CNY${hint}`,
        );
      }
      output.out(`ledger: ${accounts} account(s) checked, ${mismatches.length} mismatch(es)`);
      return mismatches.length > 0 ? 1 : 0;
    },
  },
  'ledger:backfill': {
    args: '[--account ID]',
    summary: 'give accounts from before the ledger an opening entry so that they balance',
    details:
      'For each account that differs from its ledger and has no opening entry (or only --account): writes an\n' +
      '"adjustment" entry with id "opening" of the difference, conditional on the balance not moving meanwhile.\n' +
      'Run once after deploying the ledger; then ledger:verify.',
    options: ['account'],
    async run(args, open, output) {
      const only = args.optional('account');
      const { store } = await open();
      const ids = only
        ? [only]
        : (await store.verifyLedger()).mismatches.filter((m) => !m.opened).map((m) => m.accountId);
      for (const id of ids) {
        const amount = await store.backfillOpening(id);
        output.out(
          amount === undefined
            ? `account ${id} already balances: nothing written`
            : `account ${id}: opening entry of ${unitsToYuanText(amount)} CNY written`,
        );
      }
      if (ids.length === 0) output.out('every account without an opening entry already balances');
    },
  },
  'key:create': {
    args: '--account ID [--quota YUAN] [--rate N]',
    summary: 'create an API key (printed alone on the last line)',
    details:
      '--quota caps what the key may spend in total (yuan); --rate sets its requests per second (default:\n' +
      'DEFAULT_RATE_LIMIT_PER_SECOND). The key is shown once: only its hash is stored.',
    options: ['account', 'quota', 'rate'],
    async run(args, open, output) {
      const accountId = args.required('account');
      const quota = args.optional('quota');
      if (quota !== undefined) args.money('quota');
      const rateText = args.optional('rate');
      if (rateText !== undefined && !/^[1-9]\d{0,5}$/.test(rateText)) {
        args.fail('--rate must be a whole number of requests per second, 1 to 999999');
      }
      const rate = rateText === undefined ? undefined : Number(rateText);
      const { key, record } = await (
        await open()
      ).store.createKey({
        accountId,
        ...(quota !== undefined ? { quotaYuan: quota } : {}),
        ...(rate !== undefined ? { ratePerSecond: rate } : {}),
      });
      const limits = [
        quota !== undefined ? `quota ${quota} CNY` : 'no quota',
        rate !== undefined ? `${rate} requests/s` : 'default rate limit',
      ].join(', ');
      output.err(`created ${record.key_id} for account ${record.account_id} (${limits}); shown once, store it now:`);
      output.out(key);
    },
  },
  'key:list': {
    args: '--account ID',
    summary: "the account's keys: id, status, quota, spent, rate, created",
    options: ['account'],
    async run(args, open, output) {
      const id = args.required('account');
      const { store } = await open();
      if (!(await store.accountExists(id))) throw new AdminError(`account ${id} does not exist`);
      const keys = await store.listKeys(id);
      if (keys.length === 0) return output.err(`account ${id} has no keys`);
      table(output, [['id', 'status', 'quota', 'spent', 'rate', 'created'], ...keys.map(keyRow)]);
    },
  },
  'key:disable': {
    args: '--key KEY',
    summary: 'disable a key (401 from its next request); KEY: its id key_… or the key bc_…',
    options: ['key'],
    async run(args, open, output) {
      const key = args.key();
      await (await open()).store.disableKey(key);
      output.out('key disabled');
    },
  },
  'key:enable': {
    args: '--key KEY',
    summary: 'enable a disabled key again (not while its account is disabled)',
    options: ['key'],
    async run(args, open, output) {
      const key = args.key();
      const record = await (await open()).store.enableKey(key);
      output.out(`key ${record.key_id} enabled`);
    },
  },
  'models:seed': {
    args: '[--file PATH]',
    summary: 'write the model catalog (default lib/ship/seed/model-catalog.json)',
    options: ['file'],
    async run(args, open, output) {
      const file = args.optional('file') ?? DEFAULT_CATALOG;
      // Read before connecting: a bad file is a usage error, whether or not a stack is running.
      const catalog = readCatalog(file);
      const count = await (await open()).store.seedModels(catalog);
      output.out(`wrote ${count} models from ${file}`);
    },
  },
  'models:deprecate': {
    args: '--model NAME --sunset DATE [--replacement NAME] [--from DATE]',
    summary: 'deprecate a model (from now, or DATE): still made until the sunset, then refused; submits say so',
    details:
      'DATE: ISO 8601 (2027-01-31 or 2027-01-31T09:00:00Z). Submits to it answer with Deprecation and Sunset headers;\n' +
      'GET /models shows both. Warm functions see the change within 30 s (their catalog cache).',
    options: ['model', 'sunset', 'replacement', 'from'],
    async run(args, open, output) {
      const name = args.required('model');
      const sunset = isoDate('sunset', args.required('sunset'));
      const from = isoDate('from', args.optional('from') ?? new Date().toISOString());
      if (Date.parse(sunset) <= Date.parse(from)) throw new UsageError('--sunset must come after the deprecation');
      const replacement = args.optional('replacement') ?? null;
      const { store } = await open();
      const record = await store.setModelLifecycle(name, {
        deprecated_at: from,
        sunset_at: sunset,
        replacement,
        retired_at: null,
      });
      output.out(
        `${record.name} deprecated from ${from}, sunset ${sunset}${replacement ? `; use ${replacement}` : ''}`,
      );
    },
  },
  'models:retire': {
    args: '--model NAME [--replacement NAME]',
    summary: 'retire a model now: submits to it are refused with a 400 naming it (nothing charged)',
    options: ['model', 'replacement'],
    async run(args, open, output) {
      const name = args.required('model');
      const replacement = args.optional('replacement');
      const now = new Date().toISOString();
      const { store } = await open();
      await store.setModelLifecycle(name, { retired_at: now, ...(replacement ? { replacement } : {}) });
      output.out(`${name} retired at ${now}`);
    },
  },
  'models:restore': {
    args: '--model NAME',
    summary: 'undo a deprecation or retirement: the model is active again',
    options: ['model'],
    async run(args, open, output) {
      const name = args.required('model');
      const cleared = { deprecated_at: null, sunset_at: null, retired_at: null, replacement: null };
      await (await open()).store.setModelLifecycle(name, cleared);
      output.out(`${name} is active`);
    },
  },
  'models:margins': {
    args: '[--file PATH] [--model NAME]',
    summary: "our price, the upstream's cost and the margin for every option set of the catalog (no stack needed)",
    details:
      'Without --model: the worst case per model, platform, resolution, audio and video input.\n' +
      'With --model: every option set of that model. Costs: lib/ship/seed/upstream-prices.json.',
    options: ['file', 'model'],
    async run(args, _open, output) {
      const models = readCatalog(args.optional('file') ?? DEFAULT_CATALOG).models.map((model) =>
        catalogVideoModel(model),
      );
      const only = args.optional('model');
      if (only !== undefined && !models.some((model) => model.record.name === only)) {
        throw new UsageError(`no model ${only} in the catalog`);
      }
      const prices = readUpstreamPrices();
      const sets = models
        .filter((model) => only === undefined || model.record.name === only)
        .flatMap((model) => optionSets(model, prices));
      const rows = only === undefined ? worstMargins(sets) : sets;
      table(output, [
        ['model', 'platform', 'res', 'ratio', 's', 'audio', 'videos', 'audios', 'price', 'cost', 'margin', ''],
        ...rows.map((set) => [
          set.model,
          set.platform,
          set.resolution,
          set.ratio,
          String(set.duration),
          set.generateAudio ? 'yes' : 'no',
          String(set.videos),
          String(set.audios),
          unitsToYuanText(set.priceUnits),
          unitsToYuanText(set.costUnits),
          marginText(set),
          set.priceUnits < set.costUnits ? 'BELOW COST' : '',
        ]),
      ]);
      const below = sets.filter((set) => set.priceUnits < set.costUnits).length;
      output.err(
        `${sets.length} option sets, ${below} below cost; prices of ${prices.updated} (lib/ship/seed/upstream-prices.json)`,
      );
    },
  },
  'upstream:list': {
    args: '',
    summary: 'upstream (master) accounts: keys, queued slots, running jobs, in-flight limit, state; and tasks waiting',
    details:
      'queued: slots in use / capacity (jobs queued upstream). running: jobs that left the queue and have not\n' +
      'ended. in-flight limit: learned (cut on InflightBatchsizeExceeded, raised per accepted job) / ceiling.\n' +
      'state: enabled, cooling (429s in a row, the next probe after the time shown), or disabled with why.',
    async run(_args, open, output) {
      const { accounts, waiting } = await (await open()).store.upstreamAccounts();
      if (accounts.length === 0) output.err('no upstream accounts: tasks wait until one is added (upstream:set)');
      table(output, [
        ['provider', 'account', 'keys', 'queued', 'running', 'in-flight limit', 'state'],
        ...accounts.map((account) => [
          account.provider,
          account.name,
          (account.keys ?? [account.name]).join(','),
          `${account.in_use}/${account.capacity}`,
          String(Math.max(0, (account.inflight ?? 0) - account.in_use)),
          `${account.inflight_limit ?? '-'}/${account.inflight_ceiling ?? '-'}`,
          accountState(account),
        ]),
      ]);
      for (const [provider, count] of Object.entries(waiting)) output.err(`${provider}: ${count} task(s) waiting`);
    },
  },
  'upstream:set': {
    args: '--provider NAME --name ACCOUNT [--capacity N] [--keys K1,K2] [--inflight-ceiling N|none] [--enabled true|false]',
    summary: 'add an upstream (master) account or change its capacity, keys, in-flight ceiling or use',
    details:
      `A new account gets its provider's queued capacity (${PROVIDER_NAMES.map((p) => `${p} ${upstreamAccountDefaults(p)?.capacity}`).join(', ')}) and is enabled,\n` +
      "with the provider's in-flight ceiling where it has one.\n" +
      '--keys names the API keys of this master account (they share its slots; default: one, named as the account);\n' +
      'each goes into the provider\'s secret as JSON {"<key name>": "<key>"} (a plain key is "default").\n' +
      '--inflight-ceiling caps the learned limit on jobs in flight (and sets it there); none removes both.\n' +
      '--enabled true also clears a cool-down and the reason an account was disabled (a refused key).',
    options: ['provider', 'name', 'capacity', 'enabled', 'keys', 'inflight-ceiling'],
    async run(args, open, output) {
      const provider = args.required('provider');
      if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) {
        throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(', ')}`);
      }
      const name = args.required('name');
      if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(name)) {
        throw new UsageError('--name must be 1-40 lowercase letters, digits and dashes');
      }
      const capacityText = args.optional('capacity');
      const capacity = capacityText === undefined ? undefined : Number(capacityText);
      if (capacity !== undefined && !(Number.isInteger(capacity) && capacity >= 0 && capacity <= 100_000)) {
        throw new UsageError('--capacity must be a whole number from 0 to 100000');
      }
      const enabledText = args.optional('enabled');
      if (enabledText !== undefined && enabledText !== 'true' && enabledText !== 'false') {
        throw new UsageError('--enabled must be true or false');
      }
      const enabled = enabledText === undefined ? undefined : enabledText === 'true';
      const keys = args.optional('keys')?.split(',');
      if (keys && !keys.every((key) => /^[a-z0-9][a-z0-9-]{0,39}$/.test(key))) {
        throw new UsageError('--keys must be key names of 1-40 lowercase letters, digits and dashes, comma-separated');
      }
      const ceilingText = args.optional('inflight-ceiling');
      const inflightCeiling = ceilingText === undefined || ceilingText === 'none' ? undefined : Number(ceilingText);
      if (inflightCeiling !== undefined && !(Number.isInteger(inflightCeiling) && inflightCeiling >= 1)) {
        throw new UsageError('--inflight-ceiling must be a whole number of 1 or more, or none');
      }
      const account = await (
        await open()
      ).store.setUpstreamAccount(provider, name, {
        ...(capacity !== undefined && { capacity }),
        ...(enabled !== undefined && { enabled }),
        ...(keys && { keys }),
        ...(ceilingText === 'none' ? { inflightCeiling: null } : inflightCeiling !== undefined && { inflightCeiling }),
      });
      output.out(
        `upstream account ${account.provider}/${account.name}: capacity ${account.capacity}, ` +
          `${account.in_use} queued, keys ${(account.keys ?? [account.name]).join(',')}, ` +
          `in-flight limit ${account.inflight_limit ?? '-'}/${account.inflight_ceiling ?? '-'}, ` +
          `${account.enabled ? 'enabled' : 'disabled'}`,
      );
    },
  },
  upgrade: {
    args: '[--dry-run]',
    summary: 'deploy this release (cdk deploy) with its index changes staged, then backfill their keys',
    details: [
      'AWS (TABLE_PREFIX set): one deploy of <prefix>-stateful per index change per table, each waited for',
      'until ACTIVE (an index on a large table builds for a while), then `npx cdk deploy --all`, then records a',
      'new index needs are given its keys. The local stack: UpdateTable one index at a time, then the same',
      'backfill. Safe to run again. --dry-run prints the deploys and the records to backfill and changes',
      'nothing. docs/operations.md, "Upgrades".',
    ].join('\n'),
    flags: ['dry-run'],
    async run(args, open, output) {
      const dryRun = args.flag('dry-run');
      const { client, db, tables, where } = await open();
      const [{ upgradeTables }, { upgradeDeployment }] = await Promise.all([
        import('./upgrade.js'),
        import('./upgrade-deployment.js'),
      ]);
      output.err(`upgrading (${where})${dryRun ? ', dry run: nothing is changed' : ''}`);
      const log = (line: string) => output.out(line);
      if (where === 'local') {
        // The local stack makes an index at once, as it makes its tables (no CloudFormation).
        await upgradeTables(client, db, tables, { dryRun, projectAll: true, pollMs: 100, log });
        return;
      }
      const prefix = process.env['TABLE_PREFIX'];
      if (!prefix) throw new UsageError("upgrade in AWS needs TABLE_PREFIX, the deployment's prefix");
      // AWS builds an index for minutes, hours on a large table.
      await upgradeDeployment(client, db, tables, {
        dryRun,
        pollMs: 10_000,
        log,
        prefix,
        run: runInRepository,
      });
    },
  },
  'webhook:secret': {
    args: '--account ID',
    summary: "the account's webhook signing secret (whsec_…, alone on the last line)",
    details: 'Created if the account has none yet.',
    options: ['account'],
    async run(args, open, output) {
      const id = args.required('account');
      const { store, where } = await open();
      const secret = await store.webhookSecret(id);
      output.err(`webhook signing secret of account ${id} (Standard Webhooks, ${where}):`);
      output.out(secret);
    },
  },
  'webhook:rotate': {
    args: '--account ID',
    summary: 'a new webhook secret (alone on the last line); the old one also signs for 24 h',
    options: ['account'],
    async run(args, open, output) {
      const id = args.required('account');
      const { secret, previousUntil } = await (await open()).store.rotateWebhookSecret(id);
      output.err(
        previousUntil
          ? `rotated; the previous secret also signs until ${previousUntil}. New secret:`
          : 'the account had no secret; created:',
      );
      output.out(secret);
    },
  },
};

export function usage(): string {
  return [
    `Usage: ${PROGRAM} <command> [options]     (<command> --help: that command's help)`,
    '',
    ...Object.entries(COMMANDS).flatMap(([name, command]) => [`  ${name} ${command.args}`, `      ${command.summary}`]),
    '',
    `Money is yuan with at most 4 decimals; a balance, top-up or quota is at most ${MAX_YUAN_TEXT} CNY.`,
    'Target: the running local stack (npm start), or AWS when TABLE_PREFIX (or ACCOUNTS_TABLE, …) is set.',
    'Exit code: 0 done; 2 a bad argument or a refusal (unknown account or key, …); 1 anything else.',
  ].join('\n');
}

function commandHelp(name: string, command: Command): string {
  const details = command.details?.split('\n').map((line) => `  ${line}`) ?? [];
  return [`Usage: ${PROGRAM} ${name} ${command.args}`, '', `  ${command.summary}`, ...details].join('\n');
}

/** Runs a command in the repository, its output the terminal's; rejects when it fails. */
function runInRepository(command: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `${command.slice(0, 3).join(' ')} … failed (${signal ?? `exit ${code}`}): run upgrade again once fixed`,
            ),
          ),
    );
  });
}

/** Runs one command line; returns the exit code. Errors are one line on `err`. */
export async function runAdmin(argv: readonly string[], output: AdminOutput): Promise<number> {
  let destroy = () => {};
  try {
    const [name, ...rest] = argv;
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      const topic = name === undefined ? undefined : rest[0];
      if (topic === undefined) output.out(usage());
      else output.out(commandHelp(topic, commandNamed(topic)));
      return 0;
    }
    if (name.startsWith('-')) throw new UsageError(`expected a command before ${name} (${PROGRAM} --help lists them)`);
    const command = commandNamed(name);
    if (rest.includes('--help') || rest.includes('-h')) {
      output.out(commandHelp(name, command));
      return 0;
    }
    const args = parseCommandLine(name, command, rest);
    const open = async (): Promise<Session> => {
      // Loaded only now: help and bad arguments need neither the AWS SDK nor the stack.
      const [{ ownDocumentClient }, { AdminStore }, { resolveAdminTarget }, localAws] = await Promise.all([
        import('../../../functions/adapters/dynamodb/client.js'),
        import('./admin-store.js'),
        import('./target.js'),
        import('../sam-local/local-aws.js'),
      ]);
      const target = resolveAdminTarget(REPOSITORY_ROOT);
      const own = ownDocumentClient(
        target.where === 'local'
          ? {
              endpoint: target.dynamodbEndpoint,
              region: localAws.LOCAL_REGION,
              credentials: localAws.LOCAL_CREDENTIALS,
            }
          : {},
      );
      destroy = own.destroy;
      const { db, client } = own;
      return { store: new AdminStore(db, target.tables), where: target.where, db, client, tables: target.tables };
    };
    return (await command.run(args, open, output)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof AdminError || error instanceof InvalidAmountError) {
      output.err(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof TargetError) {
      output.err(`error: ${error.message}`);
      return 1;
    }
    output.err(`error: ${(error as Error).stack ?? String(error)}`);
    return 1;
  } finally {
    destroy();
  }
}

function commandNamed(name: string): Command {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`unknown command "${name}" (${PROGRAM} --help lists them)`);
  return command;
}

/** The command's options, strictly: an unknown, repeated or value-less option is a UsageError naming it. */
function parseCommandLine(name: string, command: Command, argv: string[]): Arguments {
  const names = command.options ?? [];
  const options: Record<string, { type: 'string'; multiple: true } | { type: 'boolean' }> = {};
  for (const option of [...names, ...(command.accountPositional ? ['account'] : [])]) {
    options[option] = { type: 'string', multiple: true };
  }
  for (const flag of command.flags ?? []) options[flag] = { type: 'boolean' };
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: command.accountPositional === true, strict: true });
  } catch (error) {
    throw new UsageError(`${name}: ${parseArgsMessage(error as Error & { code?: string }, Object.keys(options))}`);
  }
  return new Arguments(name, parsed.values as Record<string, string[] | boolean | undefined>, parsed.positionals);
}

function parseArgsMessage(error: Error & { code?: string }, known: string[]): string {
  const option = /'(-[^' ,]+|--[^' ]+)/.exec(error.message)?.[1] ?? /'([^']*)'/.exec(error.message)?.[1] ?? '';
  const takes = known.length > 0 ? `it takes ${known.map((name) => `--${name}`).join(', ')}` : 'it takes no options';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option}; ${takes}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `${option} needs a value (one that starts with "-" is written ${option}=-…)`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${option}"; ${takes}`;
    default:
      return error.message.split('\n')[0] ?? error.message;
  }
}

class Arguments {
  constructor(
    private readonly command: string,
    private readonly values: Record<string, string[] | boolean | undefined>,
    private readonly positionals: string[],
  ) {}

  /** A flag (an option without a value): given or not. */
  flag(name: string): boolean {
    return this.values[name] === true;
  }

  optional(name: string): string | undefined {
    const given = this.values[name];
    if (given === undefined || typeof given === 'boolean') return undefined;
    if (given.length > 1) this.fail(`--${name} is given ${given.length} times`);
    const value = given[0]!.trim();
    if (value === '') this.fail(`--${name} is empty`);
    return value;
  }

  fail(message: string): never {
    throw new UsageError(`${this.command}: ${message}`);
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) this.fail(`--${name} is required`);
    return value;
  }

  /** An amount of money in yuan, within the balance bound: its units. */
  money(name: string): number {
    return this.moneyText(name, this.required(name));
  }

  /** `text` (the option's value, or a part of it) as units, within the balance bound. */
  moneyText(name: string, text: string): number {
    let units: number;
    try {
      units = yuanToUnits(text);
    } catch (error) {
      if (error instanceof InvalidAmountError) this.fail(`--${name}: ${error.message}`);
      throw error;
    }
    if (units > MAX_BALANCE_UNITS) this.fail(`--${name} must be at most ${MAX_YUAN_TEXT} CNY`);
    return units;
  }

  /** The account id, as `<command> ID` or `--account ID`. */
  account(): string {
    const flag = this.optional('account');
    if (this.positionals.length > 1 || (flag !== undefined && this.positionals.length > 0)) {
      this.fail(`one account id, please (${this.command} ID)`);
    }
    const id = flag ?? this.positionals[0];
    if (!id) this.fail(`the account id is required (${this.command} ID)`);
    return id;
  }

  /** `--key`: a key id (key_…) or the key itself (bc_…). */
  key(): string {
    const key = this.required('key');
    if (!/^key_[A-Za-z0-9]+$/.test(key) && !isWellFormedApiKey(key)) {
      this.fail('--key must be a key id (key_…) or the key itself (bc_…)');
    }
    return key;
  }
}

/** `--request-id`, checked; without it a new one, printed first so that the operator can retry with it. */
function requestIdOf(args: Arguments, output: AdminOutput, what: string): string {
  const given = args.optional('request-id');
  if (given !== undefined && !TOPUP_REQUEST_ID.test(given)) {
    args.fail('--request-id must be 1–128 letters, digits, "_", ".", ":" or "-"');
  }
  const requestId = given ?? randomUUID();
  if (given === undefined) {
    output.err(`request id ${requestId}: to retry this ${what} safely, run it again with --request-id ${requestId}`);
  }
  return requestId;
}

function keyRow(key: ApiKeyRecord): string[] {
  return [
    key.key_id,
    key.status,
    key.quota_units === undefined ? 'none' : `${unitsToYuan(key.quota_units)}`,
    `${unitsToYuanText(key.spent_units)}`,
    key.rate_per_second === undefined ? 'default' : `${key.rate_per_second}/s`,
    key.created_at,
  ];
}

/** Rows as aligned columns, one line each. */
function table(output: AdminOutput, rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    output.out(
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
}

/** An upstream account's state for operators: enabled, cooling (and when it may be probed), or disabled. */
function accountState(account: UpstreamAccount): string {
  if (!account.enabled) return `disabled${account.disabled_reason ? `: ${account.disabled_reason}` : ''}`;
  if ((account.cool_streak ?? 0) > 0) return `cooling (${account.cool_streak} 429s; probe after ${account.cool_until})`;
  return 'enabled';
}

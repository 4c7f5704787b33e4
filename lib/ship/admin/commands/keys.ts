/** The API key commands: create, list, disable and enable an account's keys. */
import { unitsToYuan, unitsToYuanText } from '../../../../functions/core/money.js';
import type { ApiKeyRecord } from '../../../../functions/core/ports/accounts.js';
import type { Command } from '../cli/command.js';
import { table } from '../cli/table.js';
import { AdminError } from '../errors.js';

export const KEY_COMMANDS: Record<string, Command> = {
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
};

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

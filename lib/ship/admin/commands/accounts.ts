/** The account commands: create, show, disable and enable an account. */
import { balanceToYuan, unitsToYuanText } from '../../../../functions/core/money.js';
import { MAX_YUAN_TEXT } from '../cli/arguments.js';
import type { Command } from '../cli/command.js';
import { table } from '../cli/table.js';

export const ACCOUNT_COMMANDS: Record<string, Command> = {
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
};

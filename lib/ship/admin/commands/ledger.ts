/** The ledger commands: verify balances against their ledger entries, and backfill opening entries. */
import { unitsToYuanText } from '../../../../functions/core/money.js';
import type { Command } from '../cli/command.js';

export const LEDGER_COMMANDS: Record<string, Command> = {
  'ledger:verify': {
    args: '[--account ID]',
    summary:
      'check every balance (or one account’s) against its ledger, and top-ups against their orders (exit 1 if not)',
    details:
      'One line per account that differs, then a summary. Each account is judged on a quiet moment (read, summed,\n' +
      'read again); run it when no top-up or submit is under way for exact results. An account from before the\n' +
      'ledger differs by its old balance: ledger:backfill gives it an opening entry.',
    options: ['account'],
    async run(args, open, output) {
      const { accounts, mismatches, topups } = await (await open()).store.verifyLedger(args.optional('account'));
      for (const account of mismatches) {
        const hint = account.opened ? '' : ` (no opening entry: ledger:backfill --account ${account.accountId})`;
        output.out(
          `mismatch: account ${account.accountId} balance ${unitsToYuanText(account.balanceUnits)} CNY, ` +
            `ledger ${unitsToYuanText(account.entriesUnits)} CNY over ${account.entries} entries, ` +
            `difference ${unitsToYuanText(account.balanceUnits - account.entriesUnits)} CNY${hint}`,
        );
      }
      for (const topup of topups) {
        output.out(`mismatch: top-up ${topup.topupId} of account ${topup.accountId}: ${topup.problem}`);
      }
      output.out(
        `ledger: ${accounts} account(s) checked, ${mismatches.length} mismatch(es); ` +
          `top-ups: ${topups.length} mismatch(es)`,
      );
      return mismatches.length + topups.length > 0 ? 1 : 0;
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
};

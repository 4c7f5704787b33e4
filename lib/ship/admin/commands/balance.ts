/**
 * Money in: balance:topup and balance:adjust (each at most once per request id) and code:create (top-up codes
 * a customer redeems in the console).
 */
import { randomUUID } from 'node:crypto';
import { MAX_YUAN_TEXT } from '../cli/arguments.js';
import type { Arguments } from '../cli/arguments.js';
import type { AdminOutput, Command } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { TOPUP_REQUEST_ID } from '../request-id.js';

export const BALANCE_COMMANDS: Record<string, Command> = {
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
      const applied = await (await open()).store.topUp(id, args.required('amount'), requestId);
      reportBalance(output, id, requestId, applied, 'nothing added');
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
      const applied = await (await open()).store.adjust(id, amount, reason, requestId);
      reportBalance(output, id, requestId, applied, 'nothing changed');
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
};

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

/** The balance after a top-up or adjustment, and whether its request id had been applied before. */
function reportBalance(
  output: AdminOutput,
  id: string,
  requestId: string,
  { balance, added }: { balance: number; added: boolean },
  nothing: string,
): void {
  output.out(
    added
      ? `account ${id} balance: ${balance} CNY`
      : `request id ${requestId} was already applied: ${nothing}; account ${id} balance: ${balance} CNY`,
  );
}

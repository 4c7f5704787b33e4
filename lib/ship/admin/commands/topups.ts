/**
 * Top-ups (docs/money-and-ledger.md, "Top-ups"): topup:list shows orders; topup:query asks Alipay about one and
 * settles it as a GET of the order would (credited once if paid, closed if expired unpaid).
 */
import type { Command } from '../cli/command.js';
import { UsageError } from '../errors.js';

const STATUSES = ['pending', 'paid', 'closed'];

export const TOPUP_COMMANDS: Record<string, Command> = {
  'topup:list': {
    args: '[--account ID] [--status pending|paid|closed] [--limit N]',
    summary: 'list top-up orders, newest first: id, account, amount, status, Alipay trade, times',
    options: ['account', 'status', 'limit'],
    async run(args, open, output) {
      const status = args.optional('status');
      if (status !== undefined && !STATUSES.includes(status))
        args.fail(`--status must be one of ${STATUSES.join(', ')}`);
      const limitText = args.optional('limit') ?? '50';
      const limit = Number(limitText);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        args.fail('--limit must be a whole number from 1 to 1000');
      const session = await open();
      const { listTopups } = await import('../topup-admin.js');
      const orders = await listTopups(session.db, session.tables, {
        accountId: args.optional('account'),
        status,
        limit,
      });
      for (const order of orders) {
        output.out(
          [
            order.topup_id,
            order.account_id,
            `${order.amount} CNY`,
            order.status,
            order.trade_no ?? '-',
            order.created_at,
            order.paid_at ?? order.closed_at ?? '-',
          ].join('\t'),
        );
      }
      output.err(`${orders.length} order(s)`);
    },
  },
  'topup:query': {
    args: '--topup ID',
    summary: 'ask Alipay about an order and settle it: credit it once if paid, close it if expired unpaid',
    details:
      'Alipay is reached with the settings the functions use: ALIPAY_GATEWAY_URL, ALIPAY_APP_ID, ALIPAY_PUBLIC_KEY\n' +
      'and ALIPAY_APP_PRIVATE_KEY (or ALIPAY_APP_PRIVATE_KEY_SECRET_ARN) from the environment; against the local\n' +
      'stack, its simulator unless they are set.',
    options: ['topup'],
    async run(args, open, output) {
      const topupId = args.required('topup');
      if (!/^tp_[0-9a-f]{32}$/.test(topupId))
        throw new UsageError('--topup must be an order id (tp_ and 32 hex digits)');
      const session = await open();
      const { queryTopup } = await import('../topup-admin.js');
      const result = await queryTopup(session.db, session.tables, session.where, topupId, (line) => output.err(line));
      output.out(
        `${result.before} → ${result.after.status}${result.after.trade_no ? ` (Alipay trade ${result.after.trade_no})` : ''}`,
      );
    },
  },
};

/**
 * The operator's side of top-ups (docs/money-and-ledger.md, "Top-ups"): orders listed from the table, and one
 * order settled with Alipay as a GET of it would, through the same use case and adapters as the functions.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AlipayGateway } from '../../../functions/adapters/alipay/alipay-gateway.js';
import { DynamoDbTopups } from '../../../functions/adapters/dynamodb/topups.js';
import { DynamoDbTopupAudit } from '../../../functions/adapters/operator/topup-audit.js';
import { readEnv } from '../../../functions/adapters/runtime/config.js';
import { cachedSecret } from '../../../functions/adapters/runtime/secret-value.js';
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import { unitsToYuan } from '../../../functions/core/money.js';
import type { TopupOrder } from '../../../functions/core/topup.js';
import { settleTopup } from '../../../functions/core/use-cases/topups/settle-topup.js';
import { AdminError } from './errors.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { runtimeFile } from './target.js';

export async function listTopups(
  db: DynamoDBDocumentClient,
  tables: Record<TableId, string>,
  filter: { accountId?: string | undefined; status?: string | undefined; limit: number },
): Promise<(Omit<TopupOrder, 'amount_units'> & { amount: number })[]> {
  const orders: TopupOrder[] = [];
  for await (const order of new DynamoDbTopupAudit(db, tables).orders()) {
    if (filter.accountId && order.account_id !== filter.accountId) continue;
    if (filter.status && order.status !== filter.status) continue;
    orders.push(order);
  }
  return orders
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, filter.limit)
    .map(({ amount_units, ...order }) => ({ ...order, amount: unitsToYuan(amount_units) }));
}

export async function queryTopup(
  db: DynamoDBDocumentClient,
  tables: Record<TableId, string>,
  where: 'aws' | 'local',
  topupId: string,
  log: (line: string) => void,
): Promise<{ before: string; after: TopupOrder }> {
  const topups = new DynamoDbTopups(db, tables);
  const order = await topups.get(topupId);
  if (!order) throw new AdminError(`top-up ${topupId} does not exist`);
  const after = await settleTopup(order, {
    topups,
    gateway: await gateway(where),
    now: () => new Date(),
    reports: {
      credited: () => log(`credited ${unitsToYuan(order.amount_units)} CNY to ${order.account_id}`),
      refused: (reason, details) => log(`credited nothing: ${reason} ${JSON.stringify(details)}`),
      closed: () => log('closed: it expired unpaid'),
    },
  });
  return { before: order.status, after };
}

/** Alipay from the functions' own variables; against the local stack without them, its simulator. */
async function gateway(where: 'aws' | 'local'): Promise<AlipayGateway> {
  if (process.env['ALIPAY_APP_ID']) {
    const arn = readEnv('alipayAppPrivateKeySecretArn');
    return new AlipayGateway({
      gatewayUrl: readEnv('alipayGatewayUrl'),
      appId: readEnv('alipayAppId'),
      alipayPublicKey: readEnv('alipayPublicKey'),
      appPrivateKey: arn ? await cachedSecret(arn)() : readEnv('alipayAppPrivateKey'),
      timeoutMs: 10_000,
    });
  }
  const file = runtimeFile(resolve(REPOSITORY_ROOT, process.env['DATA_DIR'] ?? '.data'));
  const payments =
    where === 'local' && existsSync(file)
      ? (
          JSON.parse(readFileSync(file, 'utf8')) as {
            payments?: { gatewayUrl: string; appId: string; appPrivateKey: string; alipayPublicKey: string };
          }
        ).payments
      : undefined;
  if (!payments)
    throw new AdminError(
      'set ALIPAY_APP_ID, ALIPAY_PUBLIC_KEY and ALIPAY_APP_PRIVATE_KEY (or _SECRET_ARN) to reach Alipay',
    );
  return new AlipayGateway({ ...payments, timeoutMs: 10_000 });
}

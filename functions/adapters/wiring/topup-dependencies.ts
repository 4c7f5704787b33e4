/**
 * Composition root for top-ups (docs/money-and-ledger.md, "Top-ups"): the orders in DynamoDB and Alipay
 * through its SDK, its private key read from Secrets Manager on first use in AWS (plain locally).
 */
import { InternalError } from '../../core/api-error.js';
import type { PaymentGateway, TradeState } from '../../core/ports/payments.js';
import { yuanToUnits } from '../../core/money.js';
import type { TopupReports } from '../../core/use-cases/topups/settle-topup.js';
import { AlipayGateway } from '../alipay/alipay-gateway.js';
import { logger } from '../runtime/logger.js';
import { countMetric, METRIC } from '../runtime/metrics.js';
import { readEnv } from '../runtime/config.js';
import { cachedSecret } from '../runtime/secret-value.js';
import { topupStore } from './topup-store.js';

/** Alipay's calls: a QR code or a trade's state, well within a route's 10 s. */
const ALIPAY_TIMEOUT_MS = 5_000;
/** The route Alipay posts its notifications to, under the API's public base. */
export const ALIPAY_NOTIFY_PATH = '/api/v1/payments/alipay/notify';

/** Alipay, made on first use: the private key may be a secret, read once per cold start. */
export function paymentGateway(): PaymentGateway {
  const secretArn = readEnv('alipayAppPrivateKeySecretArn');
  const privateKey = secretArn ? cachedSecret(secretArn) : async () => readEnv('alipayAppPrivateKey');
  const config = {
    gatewayUrl: readEnv('alipayGatewayUrl'),
    appId: readEnv('alipayAppId'),
    alipayPublicKey: readEnv('alipayPublicKey'),
    timeoutMs: ALIPAY_TIMEOUT_MS,
  };
  let made: Promise<AlipayGateway> | undefined;
  const gateway = () => {
    if (!config.appId || !config.alipayPublicKey) {
      throw new InternalError(
        'top-ups are not set up on this deployment yet (no Alipay app): the operator sets ALIPAY_APP_ID and ALIPAY_PUBLIC_KEY',
      );
    }
    if (!made) {
      made = privateKey().then((appPrivateKey) => new AlipayGateway({ ...config, appPrivateKey }));
      // A failed read of the key is tried again by the next call.
      made.catch(() => (made = undefined));
    }
    return made;
  };
  return {
    precreate: async (order, notifyUrl) => (await gateway()).precreate(order, notifyUrl),
    query: async (orderId): Promise<TradeState> => (await gateway()).query(orderId),
    close: async (orderId) => (await gateway()).close(orderId),
    verifyNotification: async (fields) => (await gateway()).verifyNotification(fields),
  };
}

export function topupSettings() {
  return {
    appId: readEnv('alipayAppId'),
    bounds: { minUnits: yuanToUnits(readEnv('topupMinCny')), maxUnits: yuanToUnits(readEnv('topupMaxCny')) },
    expiryMinutes: readEnv('topupExpiryMinutes'),
    notifyUrl: `${readEnv('callbackBaseUrl').replace(/\/$/, '')}${ALIPAY_NOTIFY_PATH}`,
  };
}

export const topupReports: TopupReports = {
  credited: (order, via) => {
    countMetric(METRIC.topupsCredited);
    logger.info('top-up credited', { topup_id: order.topup_id, account_id: order.account_id, via });
  },
  refused: (reason, details) => {
    countMetric(METRIC.topupNoticesRefused);
    logger.error(`a payment report credited nothing: ${reason}`, details);
  },
  closed: (order) => logger.info('top-up closed unpaid', { topup_id: order.topup_id }),
};

/** Everything the top-up use cases take, once per process. */
export function topupDependencies() {
  return {
    topups: topupStore(),
    gateway: paymentGateway(),
    reports: topupReports,
    now: () => new Date(),
    ...topupSettings(),
  };
}

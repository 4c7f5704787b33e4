/**
 * POST /api/v1/payments/alipay/notify: Alipay's asynchronous notification (docs/money-and-ledger.md,
 * "Top-ups"), a form POST with no key; its RSA2 signature is what guards it. Answers the plain text Alipay
 * reads: `success` stops its resends.
 */
import { receivePaymentNotice } from '../core/use-cases/topups/receive-payment-notice.js';
import { topupDependencies } from '../adapters/wiring/topup-dependencies.js';
import { publicDocumentRoute } from './api-handler.js';

const deps = topupDependencies();

export const handler = publicDocumentRoute(async (event) => {
  const raw = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  const fields: Record<string, string> = {};
  // A name sent twice is not Alipay's: the first is kept, and the signature then decides.
  for (const [name, value] of new URLSearchParams(raw)) if (!(name in fields)) fields[name] = value;
  const answer = await receivePaymentNotice(fields, deps);
  return { statusCode: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: answer };
});

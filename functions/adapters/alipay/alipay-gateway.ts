/**
 * The payment gateway over Alipay's OpenAPI gateway (gateway.do), through the official SDK (docs/money-and-
 * ledger.md, "Top-ups"): every answer's signature is checked (`validateSign`, off by default in the SDK), and
 * notifications are verified with checkNotifySignV2 (raw values: the first version decodes them, and fails on %).
 */
import { AlipaySdk } from 'alipay-sdk';
import type { PaymentGateway, TradeState } from '../../core/ports/payments.js';

export interface AlipayConfig {
  gatewayUrl: string;
  appId: string;
  /** PEM (PKCS#1 or PKCS#8) or bare base64 of PKCS#8. */
  appPrivateKey: string;
  alipayPublicKey: string;
  timeoutMs: number;
}

/** A failure the gateway reported (code, sub_code): the call did nothing. */
export class AlipayError extends Error {
  override readonly name = 'AlipayError';
}

const SIGNED = { validateSign: true } as const;
/** Alipay's business failure (its common codes: 10000 is success, 40004 a business failure). */
const BUSINESS_FAILED = '40004';

type Answer = { code?: string; msg?: string; subCode?: string; subMsg?: string } & Record<string, unknown>;

export class AlipayGateway implements PaymentGateway {
  private readonly sdk: AlipaySdk;

  constructor(config: AlipayConfig) {
    const pkcs1 = config.appPrivateKey.includes('BEGIN RSA PRIVATE KEY');
    this.sdk = new AlipaySdk({
      appId: config.appId,
      privateKey: config.appPrivateKey,
      // The SDK reads a PEM's header only for PKCS#1; a bare key or a PKCS#8 PEM must say PKCS8.
      keyType: pkcs1 ? 'PKCS1' : 'PKCS8',
      alipayPublicKey: config.alipayPublicKey,
      gateway: config.gatewayUrl,
      timeout: config.timeoutMs,
      signType: 'RSA2',
    });
  }

  async precreate(order: { id: string; amount: string; subject: string; expiresAt: Date }, notifyUrl: string) {
    const answer = await this.call('alipay.trade.precreate', {
      notifyUrl,
      bizContent: {
        out_trade_no: order.id,
        total_amount: order.amount,
        subject: order.subject,
        timeout_express: `${Math.max(1, Math.ceil((order.expiresAt.getTime() - Date.now()) / 60_000))}m`,
      },
    });
    if (answer.code !== '10000' || typeof answer['qrCode'] !== 'string') throw failure('precreate', answer);
    return answer['qrCode'];
  }

  async query(orderId: string): Promise<TradeState> {
    const answer = await this.call('alipay.trade.query', { bizContent: { out_trade_no: orderId } });
    // A precreated order exists at Alipay only once its code is scanned: until then, no such trade.
    if (answer.code === BUSINESS_FAILED && answer.subCode === 'ACQ.TRADE_NOT_EXIST') return { kind: 'none' };
    if (answer.code !== '10000') throw failure('query', answer);
    switch (answer['tradeStatus']) {
      case 'WAIT_BUYER_PAY':
        return { kind: 'waiting' };
      case 'TRADE_CLOSED':
        return { kind: 'closed' };
      case 'TRADE_SUCCESS':
      case 'TRADE_FINISHED': {
        const paidAt = typeof answer['sendPayDate'] === 'string' ? beijingIso(answer['sendPayDate']) : undefined;
        return {
          kind: 'paid',
          tradeNo: String(answer['tradeNo'] ?? ''),
          totalAmount: String(answer['totalAmount'] ?? ''),
          ...(paidAt && { paidAt }),
        };
      }
      default:
        throw failure('query', answer);
    }
  }

  async close(orderId: string): Promise<'closed' | 'none' | 'paid'> {
    const answer = await this.call('alipay.trade.close', { bizContent: { out_trade_no: orderId } });
    if (answer.code === '10000') return 'closed';
    if (answer.code === BUSINESS_FAILED && answer.subCode === 'ACQ.TRADE_NOT_EXIST') return 'none';
    // Only a trade waiting for payment can be closed: one that was paid meanwhile is refused so.
    if (answer.code === BUSINESS_FAILED && answer.subCode === 'ACQ.TRADE_STATUS_ERROR') return 'paid';
    throw failure('close', answer);
  }

  async verifyNotification(fields: Readonly<Record<string, string>>): Promise<boolean> {
    try {
      return this.sdk.checkNotifySignV2({ ...fields });
    } catch {
      return false;
    }
  }

  private async call(method: string, params: Record<string, unknown>): Promise<Answer> {
    return (await this.sdk.exec(method, params, SIGNED)) as Answer;
  }
}

function failure(call: string, answer: Answer): AlipayError {
  const detail = [answer.code, answer.msg, answer.subCode, answer.subMsg].filter(Boolean).join(' ');
  return new AlipayError(`Alipay ${call} failed: ${detail || 'an answer without a code'}`);
}

/** Alipay's "yyyy-MM-dd HH:mm:ss", Beijing time, as ISO UTC. */
function beijingIso(text: string): string | undefined {
  const time = Date.parse(`${text.replace(' ', 'T')}+08:00`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

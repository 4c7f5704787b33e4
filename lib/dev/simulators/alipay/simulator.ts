/**
 * Alipay's OpenAPI gateway (gateway.do) for the local stack and the tests, written from its documents
 * (docs/money-and-ledger.md, "Top-ups", lists them): alipay.trade.precreate, query and close, RSA2 both ways,
 * its error codes, and the trade's asynchronous notification, retried until it reads `success`. A precreated
 * order exists only once its code is scanned; `/qr/<token>/pay` scans and pays it (the console's button).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { baseUrlOf, closeServer, listen } from '../http.js';
import { pem, rsa2Sign, rsa2Verify, signingString } from './signing.js';

export interface AlipaySimulatorOptions {
  appId: string;
  /** Our app's public key: what requests are verified with. */
  appPublicKey: string;
  /** Alipay's private key: what answers and notifications are signed with. */
  alipayPrivateKey: string;
  port?: number;
  host?: string;
  /** Waits before each resend of a notification not answered `success` (Alipay's: 4m 10m 10m 1h 2h 6h 15h). */
  notifyRetryMs?: readonly number[];
  now?: () => number;
}

export interface SimulatedTrade {
  outTradeNo: string;
  totalAmount: string;
  subject: string;
  notifyUrl?: string;
  token: string;
  createdAt: number;
  expiresAt: number;
  /** none: precreated only; its code not scanned yet. */
  status: 'none' | 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED';
  tradeNo?: string;
  paidAt?: number;
  /** Closed before anyone scanned it: its code pays nothing any more. */
  voided?: boolean;
}

export interface SentNotification {
  outTradeNo: string;
  fields: Record<string, string>;
  answer: string;
  at: number;
}

export interface RunningAlipaySimulator {
  /** The gateway URL (ALIPAY_GATEWAY_URL). */
  gatewayUrl: string;
  baseUrl: string;
  trades(): SimulatedTrade[];
  notifications(): SentNotification[];
  /**
   * Scans and pays an order as a buyer would; resolves once its first notification was answered. `notify: false`
   * loses every notification of it (a query still finds it paid).
   */
  pay(outTradeNo: string, options?: { notify?: boolean }): Promise<SimulatedTrade>;
  /** Signs `fields` as a notification (Alipay's key): for tests that send one themselves. */
  signNotification(fields: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export const ALIPAY_NOTIFY_RETRY_MS = [4, 10, 10, 60, 120, 360, 900].map((minutes) => minutes * 60_000);

const COMMON = ['app_id', 'method', 'charset', 'sign_type', 'sign', 'timestamp', 'version'] as const;
const METHODS = new Set(['alipay.trade.precreate', 'alipay.trade.query', 'alipay.trade.close']);
const PRICE = /^\d{1,9}(\.\d{1,2})?$/;
const OUT_TRADE_NO = /^[A-Za-z0-9_]{1,64}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const EXPRESS = /^(\d{1,5})([mhd])$/;

type Answer = Record<string, string>;
const ok = (fields: Answer = {}): Answer => ({ code: '10000', msg: 'Success', ...fields });
const refused = (code: string, msg: string, subCode: string, subMsg: string): Answer => ({
  code,
  msg,
  sub_code: subCode,
  sub_msg: subMsg,
});
const business = (subCode: string, subMsg: string) => refused('40004', 'Business Failed', subCode, subMsg);
const invalid = (subCode: string, subMsg: string) => refused('40002', 'Invalid Arguments', subCode, subMsg);

export async function startAlipaySimulator(options: AlipaySimulatorOptions): Promise<RunningAlipaySimulator> {
  const now = options.now ?? Date.now;
  const appKey = pem(options.appPublicKey, 'PUBLIC KEY');
  const alipayKey = pem(options.alipayPrivateKey, 'PRIVATE KEY');
  const retries = options.notifyRetryMs ?? ALIPAY_NOTIFY_RETRY_MS;
  const trades = new Map<string, SimulatedTrade>();
  const sent: SentNotification[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let baseUrl = '';

  function answer(res: ServerResponse, method: string, fields: Answer): void {
    // The signature covers the exact text of the response object, which comes before `sign`.
    const inner = JSON.stringify(fields);
    const body = `{"${method.replaceAll('.', '_')}_response":${inner},"sign":"${rsa2Sign(inner, alipayKey)}"}`;
    res.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  function expire(trade: SimulatedTrade): void {
    if (now() < trade.expiresAt) return;
    if (trade.status === 'WAIT_BUYER_PAY') trade.status = 'TRADE_CLOSED';
    if (trade.status === 'none') trade.voided = true;
  }

  function precreate(biz: Record<string, unknown>, notifyUrl: string | undefined): Answer {
    const outTradeNo = String(biz['out_trade_no'] ?? '');
    const amount = String(biz['total_amount'] ?? '');
    const subject = typeof biz['subject'] === 'string' ? biz['subject'] : '';
    if (!OUT_TRADE_NO.test(outTradeNo)) return business('ACQ.INVALID_PARAMETER', '参数无效 out_trade_no');
    if (!PRICE.test(amount)) return business('ACQ.INVALID_PARAMETER', '参数无效 total_amount');
    const cents = Math.round(Number(amount) * 100);
    if (cents < 1 || cents > 10_000_000_000) return business('ACQ.TOTAL_FEE_EXCEED', '订单总金额不在允许范围内');
    if (!subject || subject.length > 256) return business('ACQ.INVALID_PARAMETER', '参数无效 subject');
    const express = EXPRESS.exec(String(biz['timeout_express'] ?? '90m'));
    if (!express) return business('ACQ.INVALID_PARAMETER', '参数无效 timeout_express');
    const minutes = Number(express[1]) * { m: 1, h: 60, d: 1440 }[express[2] as 'm' | 'h' | 'd'];
    const known = trades.get(outTradeNo);
    if (known) {
      expire(known);
      if (known.status === 'TRADE_SUCCESS') return business('ACQ.TRADE_HAS_SUCCESS', '交易已被支付');
      if (known.status === 'TRADE_CLOSED' || known.voided) return business('ACQ.TRADE_HAS_CLOSE', '交易已经关闭');
      if (known.totalAmount !== amount || known.subject !== subject) {
        return business('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改');
      }
      return ok({ out_trade_no: outTradeNo, qr_code: `${baseUrl}/qr/${known.token}` });
    }
    const trade: SimulatedTrade = {
      outTradeNo,
      totalAmount: amount,
      subject,
      ...(notifyUrl && { notifyUrl }),
      token: randomBytes(12).toString('hex'),
      createdAt: now(),
      expiresAt: now() + minutes * 60_000,
      status: 'none',
    };
    trades.set(outTradeNo, trade);
    return ok({ out_trade_no: outTradeNo, qr_code: `${baseUrl}/qr/${trade.token}` });
  }

  function find(biz: Record<string, unknown>): SimulatedTrade | undefined {
    const byTradeNo = typeof biz['trade_no'] === 'string' ? biz['trade_no'] : undefined;
    if (byTradeNo) return [...trades.values()].find((trade) => trade.tradeNo === byTradeNo);
    return trades.get(String(biz['out_trade_no'] ?? ''));
  }

  function query(biz: Record<string, unknown>): Answer {
    if (!biz['out_trade_no'] && !biz['trade_no']) return business('ACQ.INVALID_PARAMETER', '参数无效');
    const trade = find(biz);
    if (trade) expire(trade);
    if (!trade || trade.status === 'none') return business('ACQ.TRADE_NOT_EXIST', '交易不存在');
    return ok({
      trade_no: trade.tradeNo!,
      out_trade_no: trade.outTradeNo,
      trade_status: trade.status,
      total_amount: trade.totalAmount,
      buyer_logon_id: 'sim***@example.com',
      ...(trade.status === 'TRADE_SUCCESS' && {
        buyer_pay_amount: trade.totalAmount,
        receipt_amount: trade.totalAmount,
        send_pay_date: beijing(trade.paidAt!),
      }),
    });
  }

  function closeTrade(biz: Record<string, unknown>): Answer {
    if (!biz['out_trade_no'] && !biz['trade_no']) return business('ACQ.INVALID_PARAMETER', '参数无效');
    const trade = find(biz);
    if (trade) expire(trade);
    if (!trade || trade.status === 'none') {
      // Nothing to close, but its code is void from now on.
      if (trade) trade.voided = true;
      return business('ACQ.TRADE_NOT_EXIST', '交易不存在');
    }
    if (trade.status !== 'WAIT_BUYER_PAY') {
      return business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法，只有等待买家付款状态下才能发起交易关闭');
    }
    trade.status = 'TRADE_CLOSED';
    return ok({ trade_no: trade.tradeNo!, out_trade_no: trade.outTradeNo });
  }

  async function gateway(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const form = new URLSearchParams(await readText(req));
    const params: Record<string, string> = {};
    for (const [name, value] of [...url.searchParams, ...form]) params[name] = value;
    const method = params['method'] ?? '';
    const reply = (fields: Answer) => answer(res, METHODS.has(method) ? method : 'error', fields);
    const missing = COMMON.find((name) => !params[name]);
    if (missing)
      return reply(
        refused(
          '40001',
          'Missing Required Arguments',
          `isv.missing-${missing.replace('_', '-')}`,
          `缺少${missing}参数`,
        ),
      );
    if (!METHODS.has(method)) return reply(invalid('isv.invalid-method', '不存在的方法名'));
    if (params['app_id'] !== options.appId) return reply(invalid('isv.invalid-app-id', '无效的AppID参数'));
    if (params['sign_type'] !== 'RSA2') return reply(invalid('isv.invalid-signature-type', '无效的签名类型'));
    if (params['charset']?.toLowerCase() !== 'utf-8') return reply(invalid('isv.invalid-charset', '字符集错误'));
    if (params['version'] !== '1.0') return reply(invalid('isv.invalid-version', '版本号错误'));
    if (!TIMESTAMP.test(params['timestamp'] ?? '')) return reply(invalid('isv.invalid-timestamp', '非法的时间戳参数'));
    const content = signingString(params, ['sign']);
    if (!rsa2Verify(content, params['sign'] ?? '', appKey)) {
      return reply(invalid('isv.invalid-signature', `验签出错，网关生成的验签字符串为：${content}`));
    }
    let biz: Record<string, unknown>;
    try {
      biz = JSON.parse(params['biz_content'] ?? '') as Record<string, unknown>;
      if (biz === null || typeof biz !== 'object' || Array.isArray(biz)) throw new Error();
    } catch {
      return reply(business('ACQ.INVALID_PARAMETER', '参数无效 biz_content'));
    }
    if (method === 'alipay.trade.precreate') return reply(precreate(biz, params['notify_url']));
    if (method === 'alipay.trade.query') return reply(query(biz));
    return reply(closeTrade(biz));
  }

  function notification(trade: SimulatedTrade): Record<string, string> {
    const paid = beijing(trade.paidAt!);
    return signNotification({
      notify_time: beijing(now()),
      notify_type: 'trade_status_sync',
      notify_id: randomUUID().replace(/-/g, ''),
      app_id: options.appId,
      auth_app_id: options.appId,
      charset: 'utf-8',
      version: '1.0',
      trade_no: trade.tradeNo!,
      out_trade_no: trade.outTradeNo,
      trade_status: 'TRADE_SUCCESS',
      total_amount: trade.totalAmount,
      receipt_amount: trade.totalAmount,
      invoice_amount: trade.totalAmount,
      buyer_pay_amount: trade.totalAmount,
      point_amount: '0.00',
      subject: trade.subject,
      seller_id: '2088000000000001',
      buyer_id: '2088000000000002',
      buyer_logon_id: 'sim***@example.com',
      gmt_create: beijing(trade.createdAt),
      gmt_payment: paid,
      fund_bill_list: JSON.stringify([{ amount: trade.totalAmount, fundChannel: 'ALIPAYACCOUNT' }]),
    });
  }

  function signNotification(fields: Record<string, string>): Record<string, string> {
    const unsigned = Object.fromEntries(
      Object.entries(fields).filter(([name]) => name !== 'sign' && name !== 'sign_type'),
    );
    return { ...unsigned, sign_type: 'RSA2', sign: rsa2Sign(signingString(unsigned, []), alipayKey) };
  }

  async function notify(trade: SimulatedTrade, attempt: number): Promise<void> {
    if (!trade.notifyUrl) return;
    const fields = notification(trade);
    let text: string;
    try {
      const response = await fetch(trade.notifyUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: new URLSearchParams(fields).toString(),
        signal: AbortSignal.timeout(15_000),
      });
      text = (await response.text()).trim();
    } catch (error) {
      text = `(no answer: ${(error as Error).message})`;
    }
    sent.push({ outTradeNo: trade.outTradeNo, fields, answer: text, at: now() });
    const wait = retries[attempt];
    if (text === 'success' || wait === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void notify(trade, attempt + 1);
    }, wait);
    timer.unref();
    timers.add(timer);
  }

  async function pay(outTradeNo: string, { notify: send = true } = {}): Promise<SimulatedTrade> {
    const trade = trades.get(outTradeNo);
    if (!trade) throw new Error(`no order ${outTradeNo}`);
    expire(trade);
    if (trade.voided || trade.status === 'TRADE_CLOSED') throw new Error(`order ${outTradeNo} is closed`);
    if (trade.status === 'TRADE_SUCCESS') return trade;
    trade.tradeNo ??= `${beijing(now()).replace(/\D/g, '').slice(0, 8)}22001${randomDigits(15)}`;
    trade.status = 'TRADE_SUCCESS';
    trade.paidAt = now();
    if (send) await notify(trade, 0);
    return trade;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, POST' };
    const qr = /^\/qr\/([0-9a-f]{24})(\/pay)?$/.exec(url.pathname);
    void (async () => {
      if (req.method === 'POST' && url.pathname === '/gateway.do') return gateway(req, res, url);
      // What tests look at: the trades and every notification sent, with the answer each got.
      if (req.method === 'GET' && url.pathname === '/simulator/trades') return json(res, [...trades.values()]);
      if (req.method === 'GET' && url.pathname === '/simulator/notifications') return json(res, sent);
      if (req.method === 'OPTIONS' && qr) return void res.writeHead(204, cors).end();
      const trade = qr && [...trades.values()].find((candidate) => candidate.token === qr[1]);
      if (qr && !trade) return void res.writeHead(404, cors).end('no such code');
      if (trade && req.method === 'POST' && qr?.[2]) {
        try {
          const paid = await pay(trade.outTradeNo, { notify: url.searchParams.get('notify') !== 'false' });
          res.writeHead(200, { ...cors, 'Content-Type': 'application/json' });
          return void res.end(JSON.stringify({ out_trade_no: paid.outTradeNo, trade_no: paid.tradeNo }));
        } catch (error) {
          res.writeHead(409, { ...cors, 'Content-Type': 'application/json' });
          return void res.end(JSON.stringify({ error: (error as Error).message }));
        }
      }
      if (trade && req.method === 'GET') {
        const body = `Alipay simulator: order ${trade.outTradeNo}, ${trade.totalAmount} CNY. POST ${url.pathname}/pay pays it.`;
        res.writeHead(200, { ...cors, 'Content-Type': 'text/plain; charset=utf-8' });
        return void res.end(body);
      }
      res.writeHead(404).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const address = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  baseUrl = baseUrlOf(address);

  return {
    gatewayUrl: `${baseUrl}/gateway.do`,
    baseUrl,
    trades: () => [...trades.values()].map((trade) => ({ ...trade })),
    notifications: () => [...sent],
    pay,
    signNotification,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await closeServer(server);
    },
  };
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Epoch ms as Alipay writes times: Beijing time, "yyyy-MM-dd HH:mm:ss". */
function beijing(epochMs: number): string {
  return new Date(epochMs + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

function randomDigits(count: number): string {
  return Array.from(randomBytes(count), (byte) => String(byte % 10)).join('');
}

/**
 * Top up with Alipay (docs/console.md, "Top up"): pick or type an amount, scan the QR code, and watch the order
 * turn paid without reloading; the order history below. Against the local simulator a button pays it.
 */
import QRCode from 'qrcode';
import { useEffect, useState } from 'preact/hooks';
import type { Topup } from '../api.js';
import { useServices } from '../context.js';
import { dateTime, yuan } from '../format.js';
import { Form, SubmitButton } from '../form.js';
import { LoadMore } from '../load-more.js';
import { Card, Empty, ErrorNote, Loading, useAction, useLoad } from '../ui.js';

const PRESETS = [10, 50, 100, 500];
/** How often a pending order is asked about: the notification usually lands within seconds of the payment. */
const POLL_MS = 2_000;

export function TopUp() {
  const { api } = useServices();
  const [order, setOrder] = useState<Topup | null>(null);
  const history = useLoad(() => api.topups(null, 10), [order?.status]);

  return (
    <>
      <h1>Top up</h1>
      <p class="lead">
        Add money to your balance with Alipay. The order is credited once Alipay confirms the payment; an unpaid order
        closes when it expires.
      </p>
      <NewOrder onOrder={setOrder} />
      {order && <OrderCard key={order.topup_id} initial={order} onChange={setOrder} />}
      <Card title="Orders">
        <ErrorNote error={history.error} />
        {history.loading && !history.data && <Loading />}
        {history.data && history.data.items.length === 0 && (
          <Empty testId="topups-empty">
            <p>No top-ups yet. Your orders and their status show here.</p>
          </Empty>
        )}
        {history.data && history.data.items.length > 0 && <OrderTable orders={history.data.items} />}
        {history.data && (
          <LoadMore
            cursor={history.data.next_cursor}
            testId="topups"
            more={{
              busy: history.loading,
              error: null,
              run: async () => {
                const next = await api.topups(history.data?.next_cursor, 10);
                history.setData({
                  items: [...(history.data?.items ?? []), ...next.items],
                  next_cursor: next.next_cursor,
                });
              },
            }}
          />
        )}
      </Card>
    </>
  );
}

function NewOrder({ onOrder }: { onOrder: (order: Topup) => void }) {
  const { api } = useServices();
  const [amount, setAmount] = useState('100');
  const value = Number(amount);
  const valid = amount.trim() !== '' && /^\d+(\.\d{1,2})?$/.test(amount.trim()) && value > 0;
  const action = useAction(async () => onOrder(await api.createTopup(value)));

  return (
    <Card title="New top-up">
      <div class="presets" role="group" aria-label="Amounts">
        {PRESETS.map((preset) => (
          <button
            key={preset}
            type="button"
            class={`button small${Number(amount) === preset ? ' active' : ''}`}
            onClick={() => setAmount(String(preset))}
            data-testid={`topup-preset-${preset}`}
          >
            {yuan(preset)}
          </button>
        ))}
      </div>
      <Form class="form inline" testId="topup-form" onSubmit={() => void action.run()}>
        <label class="field">
          <span>Amount (CNY, up to 2 decimals)</span>
          <input
            type="text"
            inputMode="decimal"
            name="amount"
            value={amount}
            onInput={(event) => setAmount((event.target as HTMLInputElement).value)}
            data-testid="topup-amount"
          />
        </label>
        <SubmitButton
          busy={action.busy}
          disabled={action.busy || !valid}
          label="Pay with Alipay"
          busyLabel="Creating…"
          testId="topup-submit"
        />
      </Form>
      <ErrorNote error={action.error} testId="topup-error" />
    </Card>
  );
}

/** The current order: its QR code while pending, polled until paid or closed. */
function OrderCard({ initial, onChange }: { initial: Topup; onChange: (order: Topup) => void }) {
  const { api, config } = useServices();
  const [order, setOrder] = useState(initial);
  const [image, setImage] = useState<string | null>(null);
  const [pollError, setPollError] = useState<unknown>(null);
  const pay = useAction(async () => {
    const response = await fetch(`${order.qr_code}/pay`, { method: 'POST' });
    if (!response.ok) throw new Error(`the simulator refused the payment (HTTP ${response.status})`);
  });

  useEffect(() => {
    if (!order.qr_code) return setImage(null);
    void QRCode.toDataURL(order.qr_code, { margin: 1, width: 240 }).then(setImage, () => setImage(null));
  }, [order.qr_code]);

  useEffect(() => {
    if (order.status !== 'pending') return;
    const timer = setTimeout(async () => {
      try {
        const next = await api.topup(order.topup_id);
        setPollError(null);
        setOrder(next);
        if (next.status !== order.status) onChange(next);
      } catch (error) {
        setPollError(error);
        setOrder({ ...order });
      }
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [order]);

  return (
    <Card title={`Order ${order.topup_id}`}>
      <p data-testid="topup-status" data-status={order.status}>
        {order.status === 'pending' && (
          <>
            Scan with Alipay to pay <strong>{yuan(order.amount)}</strong> before {dateTime(order.expires_at)}. This page
            updates by itself.
          </>
        )}
        {order.status === 'paid' && (
          <span class="note note-success" role="status">
            Paid: <strong data-testid="topup-paid-amount">{yuan(order.amount)}</strong> added to your balance on{' '}
            {dateTime(order.paid_at)} (Alipay trade {order.trade_no}).
          </span>
        )}
        {order.status === 'closed' && <>This order expired unpaid and is closed: start a new one.</>}
      </p>
      {order.status === 'pending' && image && (
        <img class="qr" src={image} width={240} height={240} alt="Alipay QR code" data-testid="topup-qr" />
      )}
      {order.status === 'pending' && config.payments === 'simulator' && order.qr_code && (
        <p>
          <button
            class="button"
            type="button"
            onClick={() => void pay.run()}
            disabled={pay.busy}
            data-testid="topup-simulate-pay"
          >
            {pay.busy ? 'Paying…' : 'Pay with the Alipay simulator'}
          </button>{' '}
          <span class="hint">Local stack only: the simulator pays the order and sends Alipay's notification.</span>
        </p>
      )}
      <ErrorNote error={pay.error ?? pollError} testId="topup-poll-error" />
    </Card>
  );
}

function OrderTable({ orders }: { orders: Topup[] }) {
  return (
    <div class="table-wrap">
      <table data-testid="topup-history">
        <thead>
          <tr>
            <th>Created</th>
            <th>Amount</th>
            <th>Status</th>
            <th>Paid</th>
            <th>Alipay trade</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((order) => (
            <tr key={order.topup_id} data-testid="topup-row" data-status={order.status}>
              <td>{dateTime(order.created_at)}</td>
              <td>{yuan(order.amount)}</td>
              <td>
                <span class={`badge badge-topup-${order.status}`}>{order.status}</span>
              </td>
              <td>{order.paid_at ? dateTime(order.paid_at) : '—'}</td>
              <td>{order.trade_no ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import { useState } from 'preact/hooks';
import type { Transaction } from '../api.js';
import { useServices } from '../context.js';
import { dateTime, TRANSACTION_LABELS, yuan } from '../format.js';
import { LoadMore } from '../load-more.js';
import { Card, Empty, ErrorNote, Loading, useAction, useLoad } from '../ui.js';

export function Transactions() {
  const { api } = useServices();
  const [extra, setExtra] = useState<Transaction[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const first = useLoad(async () => {
    const page = await api.transactions();
    setExtra([]);
    setCursor(page.next_cursor);
    return page;
  });
  const more = useAction(async () => {
    if (!cursor) return;
    const page = await api.transactions(cursor);
    setExtra((current) => [...current, ...page.items]);
    setCursor(page.next_cursor);
  });
  const items = first.data ? [...first.data.items, ...extra] : [];

  return (
    <>
      <h1>Transactions</h1>
      <p class="muted">Every change to your balance, newest first: charges for tasks, refunds and top-ups.</p>
      <Card>
        <ErrorNote error={first.error} />
        {first.loading && !first.data && <Loading />}
        {first.data && items.length === 0 && (
          <Empty testId="transactions-empty">
            <p>
              No transactions yet — top up on the Top up page (Alipay, or a code on the Overview page), then submit a
              task.
            </p>
          </Empty>
        )}
        {items.length > 0 && (
          <div class="table-wrap">
            <table data-testid="transactions-table">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Type</th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                  <th scope="col">Task</th>
                </tr>
              </thead>
              <tbody>
                {items.map((entry) => (
                  <tr
                    key={entry.id ?? entry.entry_id}
                    data-testid="transaction-row"
                    data-type={entry.type}
                    data-entry-id={entry.id ?? entry.entry_id}
                  >
                    <td>{dateTime(entry.created_at)}</td>
                    <td data-testid="transaction-type">{TRANSACTION_LABELS[entry.type] ?? entry.type}</td>
                    <td class={`num ${entry.amount < 0 ? 'negative' : 'positive'}`} data-testid="transaction-amount">
                      {entry.amount > 0 ? '+' : ''}
                      {yuan(entry.amount)}
                      {entry.balance_after !== undefined && (
                        <span class="muted small block" data-testid="transaction-balance-after">
                          balance {yuan(entry.balance_after)}
                        </span>
                      )}
                    </td>
                    <td class="mono small" data-testid="transaction-task">
                      {entry.task_id ? (
                        <a
                          href={`#/tasks?task=${encodeURIComponent(entry.task_id)}`}
                          data-testid="transaction-task-link"
                        >
                          {entry.task_id}
                        </a>
                      ) : (
                        '—'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <LoadMore more={more} cursor={cursor} testId="transactions" />
      </Card>
    </>
  );
}

import { useState } from 'preact/hooks';
import { useServices } from '../context.js';
import { dateTime, yuan } from '../format.js';
import type { RedeemResult } from '../api.js';
import { Field, Form, SubmitButton } from '../form.js';
import { Card, ErrorNote, Loading, useAction, useLoad } from '../ui.js';
import { TaskRow, TasksEmpty } from './task-list.js';

export function Overview() {
  const { api } = useServices();
  const account = useLoad(() => api.account());
  const recent = useLoad(() => api.tasks({ limit: 5 }));

  return (
    <>
      <h1>Overview</h1>
      <ErrorNote error={account.error} />
      <div class="stats">
        <Stat label="Balance" testId="balance" value={account.data && yuan(account.data.balance)} />
        <Stat
          label="Spent this month"
          testId="spent-this-month"
          value={account.data && yuan(account.data.spent_this_month)}
        />
        <Stat label="Tasks this month" testId="tasks-this-month" value={account.data?.tasks_this_month} />
      </div>
      <Redeem
        onRedeemed={(balance) => {
          if (account.data) account.setData({ ...account.data, balance });
        }}
      />
      <Card title="Recent tasks" actions={<a href="#/tasks">All tasks →</a>}>
        <ErrorNote error={recent.error} />
        {recent.loading && !recent.data && <Loading />}
        {recent.data && recent.data.items.length === 0 && <TasksEmpty />}
        {recent.data && recent.data.items.length > 0 && (
          <ul class="tasks" data-testid="recent-tasks">
            {recent.data.items.slice(0, 5).map((task) => (
              <TaskRow key={task.task_id} task={task} withVideo={false} />
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}

/** One figure of the account; "…" until it has loaded. */
function Stat({ label, testId, value }: { label: string; testId: string; value: string | number | undefined }) {
  return (
    <div class="stat">
      <span class="stat-label">{label}</span>
      <span class="stat-value" data-testid={testId}>
        {value ?? '…'}
      </span>
    </div>
  );
}

function Redeem({ onRedeemed }: { onRedeemed: (balance: number) => void }) {
  const { api } = useServices();
  const [code, setCode] = useState('');
  const [result, setResult] = useState<RedeemResult | null>(null);
  const action = useAction(async () => {
    const answer = await api.redeem(code.trim());
    setResult(answer);
    setCode('');
    onRedeemed(answer.balance);
  });

  return (
    <Card title="Top up with a code">
      <Form
        class="form inline"
        testId="redeem-form"
        onSubmit={() => {
          setResult(null);
          void action.run();
        }}
      >
        <Field
          label="Top-up code"
          type="text"
          name="code"
          required
          autocomplete="off"
          spellcheck={false}
          value={code}
          onValue={setCode}
          testId="redeem-code"
        />
        <SubmitButton
          busy={action.busy}
          disabled={action.busy || !code.trim()}
          label="Redeem"
          busyLabel="Redeeming…"
          testId="redeem-submit"
        />
      </Form>
      <ErrorNote error={action.error} testId="redeem-error" />
      {result?.already_redeemed_at && (
        <p class="note" role="status" data-testid="redeem-already">
          You redeemed this code already, on {dateTime(result.already_redeemed_at)}: nothing was added now. Your balance
          is <strong data-testid="redeem-balance">{yuan(result.balance)}</strong>.
        </p>
      )}
      {result && !result.already_redeemed_at && (
        <p class="note note-success" role="status" data-testid="redeem-result">
          Added <strong data-testid="redeem-amount">{yuan(result.amount)}</strong>. Your balance is now{' '}
          <strong data-testid="redeem-balance">{yuan(result.balance)}</strong>.
        </p>
      )}
    </Card>
  );
}

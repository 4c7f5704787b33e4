import { useState } from 'preact/hooks';
import { useServices } from '../context.js';
import { dateTime, yuan } from '../format.js';
import type { RedeemResult } from '../api.js';
import type { ModelView } from '../pricing.js';
import { estimateYuan } from '../pricing.js';
import { Field, Form, SubmitButton } from '../form.js';
import { Card, ErrorNote, Loading, useAction, useLoad } from '../ui.js';
import { TaskRow, TasksEmpty } from './task-list.js';

export function Overview() {
  const { api } = useServices();
  const account = useLoad(() => api.account());
  const recent = useLoad(() => api.tasks({ limit: 5 }));
  const models = useLoad(() => api.models());

  return (
    <>
      <h1>Overview</h1>
      <ErrorNote error={account.error} />
      {account.data && models.data && <LowBalance balance={account.data.balance} models={models.data} />}
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

/**
 * Shown while the balance does not cover the cheapest task (5 s at 720p, no sound, on the cheapest model): what is
 * missing, and where to top up.
 */
function LowBalance({ balance, models }: { balance: number; models: ModelView[] }) {
  const input = {
    resolution: '720p',
    durationSeconds: 5,
    generateAudio: false,
    videoReferenceCount: 0,
    audioReferenceCount: 0,
  };
  const costs = models
    .map((model) => ({ model: model.name, cost: estimateYuan(model, input) }))
    .filter((entry): entry is { model: string; cost: number } => entry.cost !== null)
    .sort((a, b) => a.cost - b.cost);
  const cheapest = costs[0];
  if (!cheapest || balance >= cheapest.cost) return null;
  const missing = Math.round((cheapest.cost - balance) * 10_000) / 10_000;
  return (
    <p class="note note-warning" role="status" data-testid="low-balance">
      Your balance of {yuan(balance)} does not cover a task: the cheapest, 5 s at 720p on {cheapest.model}, costs{' '}
      {yuan(cheapest.cost)}, so <strong data-testid="low-balance-missing">{yuan(missing)}</strong> is missing.{' '}
      <a href="#/topup" data-testid="low-balance-topup">
        Top up with Alipay →
      </a>
    </p>
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

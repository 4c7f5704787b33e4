import { useEffect, useRef, useState } from 'preact/hooks';
import type { TaskView } from '../api.js';
import { useServices } from '../context.js';
import { STATUS_LABELS } from '../format.js';
import { TASK_STATUSES } from '../../../../../functions/core/task-status.js';
import { LoadMore } from '../load-more.js';
import { Card, ErrorNote, Loading, useAction, useLoad } from '../ui.js';
import { TaskRow, TasksEmpty } from './task-list.js';

const PAGE_SIZE = 20;
const POLL_MS = 5000;
const UNFINISHED = new Set(['pending', 'running', 'transferring']);

export function Tasks() {
  const { api } = useServices();
  const [status, setStatus] = useState('');
  // `#/tasks?key=<id>`, from the Keys page, opens the list filtered by that key.
  const [keyId, setKeyId] = useState(() => hashParam('key') ?? '');
  const keys = useLoad(() => api.keys());
  const [items, setItems] = useState<TaskView[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);

  /** The first page again, merged into what is shown: new tasks first, changed tasks updated in place. */
  const refresh = async (replace: boolean) => {
    const mine = ++generation.current;
    try {
      const page = await api.tasks({ status: status || undefined, keyId: keyId || undefined, limit: PAGE_SIZE });
      if (mine !== generation.current) return;
      setError(null);
      if (replace) {
        setItems(page.items);
        setCursor(page.next_cursor);
        return;
      }
      setItems((current) => {
        if (!current) return page.items;
        const fresh = new Set(page.items.map((task) => task.task_id));
        return [...page.items, ...current.filter((task) => !fresh.has(task.task_id))];
      });
    } catch (caught) {
      if (mine === generation.current) setError(caught);
    }
  };

  useEffect(() => {
    setItems(null);
    setCursor(null);
    void refresh(true);
  }, [status, keyId]);

  // Unfinished tasks are watched: the page refreshes itself until they end.
  const watching = items?.some((task) => UNFINISHED.has(task.status)) ?? false;
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(() => void refresh(false), POLL_MS);
    return () => clearInterval(timer);
  }, [watching, status, keyId]);

  const more = useAction(async () => {
    if (!cursor) return;
    const page = await api.tasks({ status: status || undefined, keyId: keyId || undefined, cursor, limit: PAGE_SIZE });
    setItems((current) => {
      const seen = new Set((current ?? []).map((task) => task.task_id));
      return [...(current ?? []), ...page.items.filter((task) => !seen.has(task.task_id))];
    });
    setCursor(page.next_cursor);
  });

  return (
    <>
      <h1>Tasks</h1>
      <LinkedTask />
      <Card
        actions={
          <div class="row">
            <label class="inline-label">
              Status
              <select
                value={status}
                onChange={(e) => setStatus(e.currentTarget.value)}
                data-testid="task-filter"
                name="status"
              >
                <option value="">All</option>
                {TASK_STATUSES.map((value) => (
                  <option key={value} value={value}>
                    {STATUS_LABELS[value] ?? value}
                  </option>
                ))}
              </select>
            </label>
            <label class="inline-label">
              Key
              <select
                value={keyId}
                onChange={(e) => setKeyId(e.currentTarget.value)}
                data-testid="task-key-filter"
                name="key"
              >
                <option value="">All keys</option>
                {keys.data?.items.map((key) => (
                  <option key={key.key_id} value={key.key_id}>
                    {key.name} · {key.key_hint}
                    {key.status === 'deleted' ? ' (deleted)' : ''}
                  </option>
                ))}
                {/* A key from the link before the list has loaded: still shown as chosen. */}
                {keyId && !keys.data?.items.some((key) => key.key_id === keyId) && (
                  <option value={keyId}>{keyId}</option>
                )}
              </select>
            </label>
            <button class="button" type="button" onClick={() => void refresh(true)} data-testid="tasks-refresh">
              Refresh
            </button>
          </div>
        }
      >
        <ErrorNote error={error} />
        {items === null && !error && <Loading />}
        {items && items.length === 0 && <TasksEmpty filtered={status !== '' || keyId !== ''} />}
        {items && items.length > 0 && (
          <ul class="tasks" data-testid="task-list">
            {items.map((task) => (
              <TaskRow key={task.task_id} task={task} />
            ))}
          </ul>
        )}
        {watching && (
          <p class="muted small" role="status" data-testid="tasks-watching">
            Unfinished tasks are refreshed every few seconds.
          </p>
        )}
        <LoadMore more={more} cursor={cursor} testId="tasks" />
      </Card>
    </>
  );
}

/** The task a link names (`#/tasks?task=<id>`, from the Transactions page), shown above the list. */
function LinkedTask() {
  const { api } = useServices();
  const [taskId, setTaskId] = useState(linkedTaskId);
  useEffect(() => {
    const update = () => setTaskId(linkedTaskId());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  const linked = useLoad(async () => (taskId ? api.task(taskId) : null), [taskId]);
  if (!taskId) return null;
  return (
    <Card title="Linked task">
      <ErrorNote error={linked.error} testId="linked-task-error" />
      {linked.loading && !linked.data && <Loading />}
      {linked.data && (
        <ul class="tasks" data-testid="linked-task">
          <TaskRow task={linked.data} />
        </ul>
      )}
    </Card>
  );
}

function linkedTaskId(): string | null {
  return hashParam('task');
}

function hashParam(name: string): string | null {
  return new URLSearchParams(location.hash.split('?')[1] ?? '').get(name);
}

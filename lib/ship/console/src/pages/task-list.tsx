import { useState } from 'preact/hooks';
import type { TaskView } from '../api.js';
import { useServices } from '../context.js';
import { curlExample, dateTime, yuan } from '../format.js';
import { Empty, StatusBadge } from '../ui.js';

export function TasksEmpty({ filtered }: { filtered?: boolean }) {
  const { config } = useServices();
  if (filtered) {
    return (
      <Empty testId="tasks-empty">
        <p>No tasks match these filters.</p>
      </Empty>
    );
  }
  return (
    <Empty testId="tasks-empty">
      <p>
        No tasks yet — submit one with your key (create it on the <a href="#/keys">Keys</a> page):
      </p>
      <pre class="code" data-testid="tasks-empty-curl">
        {curlExample(config.apiBase)}
      </pre>
    </Empty>
  );
}

/** A finished task's video, loaded only when asked for: a page of 20 players was 6,000 px and 20 downloads. */
function VideoOnDemand({ task }: { task: TaskView }) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <button class="button" type="button" onClick={() => setOpen(true)} data-testid="task-play">
        Play video
      </button>
    );
  }
  return (
    <video
      class="task-video"
      controls
      autoPlay
      muted
      preload="metadata"
      playsInline
      src={task.video_url ?? undefined}
      aria-label={`Video of task ${task.task_id}`}
      data-testid="task-video"
    />
  );
}

/** One task: status, cost, times, the error of a failed task and the video of a finished one. */
export function TaskRow({ task, withVideo = true }: { task: TaskView; withVideo?: boolean }) {
  // A failed or cancelled task's charge is refunded in full (see the Transactions page).
  const refunded = task.status === 'failed' || task.status === 'refunded';
  return (
    <li class="task" data-testid="task-row" data-task-id={task.task_id} data-status={task.status}>
      <div class="task-head">
        <StatusBadge status={task.status} />
        <span class="task-model">{task.model}</span>
        <span class="task-cost" data-testid="task-cost" title={refunded ? 'Charged, then refunded' : 'Cost charged'}>
          <span class={refunded ? 'struck' : ''}>{yuan(task.cost)}</span>
          {refunded && (
            <span class="muted small" data-testid="task-refunded">
              {' '}
              refunded
            </span>
          )}
        </span>
      </div>
      <div class="task-meta muted">
        <span class="mono" title={task.task_id} data-testid="task-id">
          {task.task_id}
        </span>
        <span>
          {task.duration} s · {task.resolution} · {task.ratio}
          {task.generate_audio ? ' · sound' : ''}
        </span>
        <span>
          Created {dateTime(task.created_at)}
          {task.finished_at ? ` · finished ${dateTime(task.finished_at)}` : ''}
        </span>
        <a href={`#/webhooks?task=${encodeURIComponent(task.task_id)}`} data-testid="task-deliveries-link">
          Webhook deliveries
        </a>
      </div>
      {task.error_message && (
        <p class="note note-error" data-testid="task-error">
          {task.error_message}
        </p>
      )}
      {withVideo && task.status === 'success' && task.video_url && <VideoOnDemand task={task} />}
    </li>
  );
}

import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { SessionExpiredError } from './api.js';
import { STATUS_LABELS } from './format.js';

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return 'Something went wrong. Try again.';
}

/** An error in words, announced to screen readers. */
export function ErrorNote({ error, testId = 'page-error' }: { error: unknown; testId?: string }) {
  if (!error || error instanceof SessionExpiredError) return null;
  return (
    <p class="note note-error" role="alert" data-testid={testId}>
      {messageOf(error)}
    </p>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="muted" role="status" data-testid="loading">
      {label}
    </p>
  );
}

export function Empty({ testId, children }: { testId: string; children: ComponentChildren }) {
  return (
    <div class="empty" data-testid={testId}>
      {children}
    </div>
  );
}

export function Card({
  title,
  children,
  actions,
}: {
  title?: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card">
      {(title || actions) && (
        <div class="card-head">
          {title && <h2>{title}</h2>}
          {actions && <div class="card-actions">{actions}</div>}
        </div>
      )}
      {children}
    </section>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
  setData: (data: T) => void;
}

/** Loads once on mount (and when `deps` change); `reload` loads again. A stale answer is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine !== generation.current) return;
      setData(value);
      setError(null);
    } catch (caught) {
      if (mine === generation.current) setError(caught);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);
  return { data, error, loading, reload, setData };
}

/** What useAction gives a button that runs it without arguments. */
export interface Action {
  busy: boolean;
  error: unknown;
  run: () => Promise<unknown>;
}

/** Runs an action with a busy flag and its error kept for display. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action(...args);
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <span class={`badge badge-${status}`} data-testid="task-status" data-status={status}>
      {STATUS_LABELS[status] ?? status}
    </span>
  );
}

/** Copies `text` with the Clipboard API; says so, or says to copy by hand when the browser refuses. */
export function CopyButton({ text, testId, label = 'Copy' }: { text: string; testId: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button
      class="button primary"
      type="button"
      onClick={() => void copy()}
      data-testid={testId}
      data-copied={state}
      title={state === 'failed' ? 'The browser refused the clipboard: select the text and copy it by hand.' : undefined}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy by hand' : label}
    </button>
  );
}

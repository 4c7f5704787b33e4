/**
 * The simulated Ark's task callbacks: with `callback_url`, Ark POSTs a body shaped like the get reply on
 * status changes; an unacknowledged (no 2xx within 5 s) final callback is retried 3 times; no signature
 * (docs/providers/ark.md, "Callbacks"). The pause between retries is undocumented: 1 s by default here. Whether
 * Ark delivers one task's callbacks in order is unconfirmed: here they are (one at a time per task).
 * Only node:http / node:https; nothing here keeps the process alive, and close() cancels what is pending.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** One POST to a callback_url, as the simulator's /simulator/jobs/{id} reports it. */
export interface CallbackAttempt {
  status: string;
  /** When the attempt was sent (ISO, the simulator's clock). */
  at: string;
  /** 1 for the first send, 2-4 for the retries of a final callback. */
  attempt: number;
  /** A 2xx answer arrived within the timeout. */
  acknowledged: boolean;
}

export interface CallbackSettings {
  /** How long an attempt may wait for a 2xx (Ark: 5 s). */
  timeoutMs: number;
  /** Pause before each retry of a final callback (undocumented). */
  retryDelayMs: number;
}

/** docs/providers/ark.md, "Callbacks": an unacknowledged (no 2xx within 5 s) final callback is retried 3 times. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 5000;
export const FINAL_CALLBACK_RETRIES = 3;
/** No source gives the pause between retries: unconfirmed, 1 s. */
export const DEFAULT_CALLBACK_RETRY_DELAY_MS = 1000;

export interface Callback {
  jobId: string;
  url: string;
  status: string;
  /** What GET would answer for this status. */
  body: unknown;
  /** Final statuses are retried when not acknowledged; the others are sent once. */
  final: boolean;
  /** Told of every attempt once it settles (not after close()). */
  record(attempt: CallbackAttempt): void;
}

export class CallbackSender {
  /** Per job, the tail of its queue of callbacks: a job's callbacks go out one at a time, in order. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly closing = new AbortController();

  constructor(
    private readonly settings: CallbackSettings,
    private readonly now: () => number,
  ) {}

  send(callback: Callback): void {
    if (this.closing.signal.aborted) return;
    const { jobId } = callback;
    // deliver() does not throw; the catch keeps one broken callback from stopping the job's later ones.
    const tail = (this.queues.get(jobId) ?? Promise.resolve())
      .then(() => this.deliver(callback))
      .catch(() => undefined);
    this.queues.set(jobId, tail);
    void tail.then(() => {
      if (this.queues.get(jobId) === tail) this.queues.delete(jobId);
    });
  }

  /** Whether a callback of this job is being sent or waits to be (retries included). */
  pending(jobId: string): boolean {
    return this.queues.has(jobId);
  }

  /** Abandons every pending callback: in-flight requests are destroyed, retries dropped. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled(this.queues.values());
  }

  private async deliver(callback: Callback): Promise<void> {
    const { signal } = this.closing;
    const text = JSON.stringify(callback.body);
    const attempts = callback.final ? 1 + FINAL_CALLBACK_RETRIES : 1;
    for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt += 1) {
      if (attempt > 1) await pause(this.settings.retryDelayMs, signal);
      if (signal.aborted) return;
      const at = new Date(this.now()).toISOString();
      const acknowledged = await post(callback.url, text, this.settings.timeoutMs, signal);
      if (signal.aborted) return;
      callback.record({ status: callback.status, at, attempt, acknowledged });
      if (acknowledged) return;
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts; never holds the process open. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * One POST with `Content-Type: application/json`; true on a 2xx status within `timeoutMs`. Never rejects.
 * No keep-alive agent, so no pooled socket outlives the attempt.
 */
function post(url: string, text: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) };
    // The answer arrives on a later turn, after the timer and the abort listener below are set.
    const req = send(target, { method: 'POST', agent: false, headers }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      settle(status >= 200 && status < 300);
    });
    const giveUp = (): void => {
      settle(false);
      req.destroy();
    };
    const timer = setTimeout(giveUp, timeoutMs);
    timer.unref();
    signal.addEventListener('abort', giveUp, { once: true });
    let settled = false;
    function settle(acknowledged: boolean): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', giveUp);
      resolve(acknowledged);
    }
    req.on('error', () => settle(false));
    req.end(text);
  });
}

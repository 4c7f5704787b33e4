/**
 * The parent's side of lib/dev/local/api-process.ts: forks the API side of the local stack and waits until it
 * listens.
 */
import { forkLocalProcess } from './forked-process.js';
import type { ApiMessage, ApiReady, LocalApiConfig } from './api-process.js';

export interface ApiProcess {
  pid: number;
  url: string;
  /** Resolves (with what happened) if the process exits without being stopped. */
  unexpectedExit: Promise<string>;
  /** Closes the server (connections included) and waits for the exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export async function startApiProcess(
  config: Omit<LocalApiConfig, 'accessLog'>,
  accessLog?: (line: string) => void,
  timeoutMs = 180_000,
): Promise<ApiProcess> {
  const forked = await forkLocalProcess<ApiReady>({
    name: 'the API process',
    entry: 'lib/dev/local/api-process.ts',
    config: { ...config, accessLog: accessLog !== undefined } satisfies LocalApiConfig,
    timeoutMs,
  });
  if (accessLog) {
    forked.child.on('message', (message: ApiMessage) => {
      if (message.type === 'access-log') accessLog(message.line);
    });
  }
  return {
    pid: forked.child.pid!,
    url: forked.ready.url,
    unexpectedExit: forked.unexpectedExit,
    stop: (graceMs = 10_000) => forked.stop(graceMs),
  };
}

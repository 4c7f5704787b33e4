/**
 * The parent's side of the local stack's child processes (the API process, the workflow process): forks an
 * entry under lib/local on this Node through the repository's tsx, hands it its config as JSON in
 * CONFIG_VARIABLE, and waits for its first `ready` or `failed` message on the IPC channel.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../repository-root.js';

const CONFIG_VARIABLE = 'LOCAL_PROCESS_CONFIG';

/** How each child's Node runs: our TypeScript through tsx; source maps, as Lambda's NODE_OPTIONS has them. */
export const CHILD_EXEC_ARGV = ['--import', 'tsx', '--enable-source-maps', '--disable-warning=ExperimentalWarning'];

/** What every child sends once: `ready` (with what the parent needs) or `failed` (with the error's stack). */
export type StartMessage<Ready> = ({ type: 'ready' } & Ready) | { type: 'failed'; message: string };

export interface ForkedProcess<Ready> {
  child: ChildProcess;
  ready: Ready;
  exited: Promise<void>;
  /** Resolves (with what happened) if the child exits without being stopped; never otherwise. */
  unexpectedExit: Promise<string>;
  /** Sends `{ type: 'stop' }` and waits for the exit; SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

export async function forkLocalProcess<Ready>(options: {
  /** For error messages: "the API process". */
  name: string;
  /** The entry's file name under lib/local. */
  entry: string;
  config: unknown;
  timeoutMs: number;
}): Promise<ForkedProcess<Ready>> {
  const child = fork(join(REPOSITORY_ROOT, 'lib', 'local', options.entry), [], {
    cwd: REPOSITORY_ROOT,
    execArgv: CHILD_EXEC_ARGV,
    env: { ...process.env, [CONFIG_VARIABLE]: JSON.stringify(options.config) },
    // Dates in messages survive the trip.
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not start within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const onMessage = (message: StartMessage<Ready>) => {
      if (message.type !== 'ready' && message.type !== 'failed') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      if (message.type === 'ready') resolve(message);
      else reject(new Error(`${options.name} failed to start: ${message.message}`));
    };
    child.on('message', onMessage);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited (${child.exitCode ?? child.signalCode}) before it was ready`));
    });
  });
  let stopping = false;
  const unexpectedExit = new Promise<string>((resolve) => {
    void exited.then(() => {
      if (!stopping) resolve(`${options.name} exited unexpectedly (${child.exitCode ?? child.signalCode})`);
    });
  });
  return {
    child,
    ready,
    exited,
    unexpectedExit,
    stop: async (graceMs) => {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The child's side, before anything starts: signals are the parent's business (a Ctrl-C reaches the whole
 * process group; the parent then stops its children in order), and when the parent dies (kill -9) the channel
 * closes and the child exits at once, as the rest of the stack has. Answers the config, or exits when the
 * process was not forked by forkLocalProcess.
 */
export function childOfLocalStack<Config>(name: string, isStopping: () => boolean): Config {
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  process.on('disconnect', () => {
    if (!isStopping()) process.exit(1);
  });
  const config = JSON.parse(process.env[CONFIG_VARIABLE] ?? 'null') as Config | null;
  if (!config || !process.send) {
    console.error(`${name}: run by the local stack (an IPC channel and ${CONFIG_VARIABLE})`);
    process.exit(2);
  }
  return config;
}

/** The child's side when starting failed: exits once the message is out (exiting at once could drop it). */
export async function reportStartFailure(error: unknown): Promise<never> {
  const failed: StartMessage<never> = { type: 'failed', message: (error as Error).stack ?? String(error) };
  await new Promise<void>((resolve) => process.send!(failed, () => resolve()));
  return process.exit(1);
}

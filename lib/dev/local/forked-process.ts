/**
 * The parent's side of our Node child processes (the local stack's API and workflow processes, the stack as a
 * whole, the bench's probes): forks a TypeScript entry on this Node through the repository's tsx, hands it its
 * config as JSON in CONFIG_VARIABLE, and waits for its first `ready` or `failed` message on the IPC channel.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';

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
  /** Sends `{ type: 'stop' }` and waits for the exit; SIGKILL after `graceMs` (to the group, with `group`). */
  stop(graceMs: number): Promise<void>;
  /** A signal to the child, or with `group` to its whole process group. */
  kill(signal: NodeJS.Signals): void;
  /** With `group`, the last 60 lines the child wrote; '' otherwise. */
  recentOutput(): string;
}

export async function forkLocalProcess<Ready>(options: {
  /** For error messages: "the API process". */
  name: string;
  /** The entry's path in the repository: lib/dev/local/api-process.ts. */
  entry: string;
  config: unknown;
  timeoutMs: number;
  /**
   * A process group of its own, so that a kill takes everything the child started (DynamoDB Local's JVM), and
   * its output kept for error messages instead of shown: for a child whose parent is a bench or a test.
   */
  group?: boolean;
}): Promise<ForkedProcess<Ready>> {
  const { name, group = false } = options;
  const child = fork(join(REPOSITORY_ROOT, options.entry), [], {
    cwd: REPOSITORY_ROOT,
    execArgv: CHILD_EXEC_ARGV,
    env: { ...process.env, [CONFIG_VARIABLE]: JSON.stringify(options.config) },
    // Dates in messages survive the trip.
    serialization: 'advanced',
    stdio: group ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: group,
  });
  const tail: string[] = [];
  for (const output of [child.stdout, child.stderr])
    if (output) createInterface({ input: output }).on('line', (line) => tail.push(line) > 60 && tail.shift());
  const recentOutput = () => tail.join('\n');
  const kill = (signal: NodeJS.Signals) => {
    try {
      if (group) process.kill(-child.pid!, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`${name} ${why}${group ? `\n${recentOutput()}` : ''}`));
    const timer = setTimeout(() => fail(`did not start within ${options.timeoutMs} ms`), options.timeoutMs);
    const onMessage = (message: StartMessage<Ready>) => {
      if (message.type !== 'ready' && message.type !== 'failed') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      if (message.type === 'ready') resolve(message);
      else fail(`failed to start: ${message.message}`);
    };
    child.on('message', onMessage);
    void exited.then(() => {
      clearTimeout(timer);
      fail(`exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    });
  }).catch((error: unknown) => {
    kill('SIGKILL');
    throw error;
  });
  let stopping = false;
  const unexpectedExit = new Promise<string>((resolve) => {
    void exited.then(() => {
      if (!stopping) resolve(`${name} exited unexpectedly (${child.exitCode ?? child.signalCode})`);
    });
  });
  return {
    child,
    ready,
    exited,
    unexpectedExit,
    kill,
    recentOutput,
    stop: async (graceMs) => {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        if (child.connected) child.send({ type: 'stop' });
        const timer = setTimeout(() => kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      // What the group may have left behind.
      if (group) kill('SIGKILL');
    },
  };
}

/**
 * The child's side, before anything starts: signals are the parent's business (a Ctrl-C reaches the whole
 * process group; the parent then stops its children in order), and when the parent dies (kill -9) the channel
 * closes and the child exits at once (or `onParentGone`), as the rest of the stack has. Answers the config, or
 * exits when the process was not forked by forkLocalProcess.
 */
export function childOfLocalStack<Config>(
  name: string,
  isStopping: () => boolean,
  onParentGone: () => void = () => process.exit(1),
): Config {
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  process.on('disconnect', () => {
    if (!isStopping()) onParentGone();
  });
  const config = JSON.parse(process.env[CONFIG_VARIABLE] ?? 'null') as Config | null;
  if (!config || !process.send) {
    console.error(`${name}: run by forkLocalProcess (an IPC channel and ${CONFIG_VARIABLE})`);
    process.exit(2);
  }
  return config;
}

/** The child's answer (`ready`, or `failed` with the error's stack); resolves once the message is out. */
export const sendToParent = <Ready>(message: StartMessage<Ready>) =>
  new Promise<void>((resolve) => process.send!(message, () => resolve()));

/** The child's side when starting failed: exits once the message is out (exiting at once could drop it). */
export async function reportStartFailure(error: unknown): Promise<never> {
  await sendToParent({ type: 'failed', message: (error as Error).stack ?? String(error) });
  return process.exit(1);
}

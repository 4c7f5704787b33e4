/**
 * Child processes of the bench and of the reliability tests: a TypeScript entry run by the repository's
 * tsx (on the Node 22 of the devDependencies), in its own process group so that a kill takes everything
 * it started (DynamoDB Local's JVM included). Children talk back with one JSON object per stdout line,
 * prefixed by MESSAGE_PREFIX; anything else they print is kept for error messages.
 */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPOSITORY_ROOT } from '../repository-root.js';

export const MESSAGE_PREFIX = '@@bench ';
const TSX = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'tsx');
/** The Node 22 of the devDependencies (the `node` package), whatever node started the parent. */
export const NODE_22 = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'node');

/** For the child's side: one message to the parent. */
export function sendToParent(message: Record<string, unknown>): void {
  process.stdout.write(`${MESSAGE_PREFIX}${JSON.stringify(message)}\n`);
}

export interface ChildMessage {
  type: string;
  [key: string]: unknown;
}

export interface Child {
  /** Resolves with the first message of this type (or rejects when the child exits first or the time is up). */
  waitFor<T = ChildMessage>(type: string, timeoutMs?: number): Promise<T>;
  exited: Promise<number | null>;
  /** The child's last 60 lines of output that were not messages (logs, errors). */
  recentOutput(): string;
  /** Sends `signal` to the child's whole process group. */
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when the child has exited. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnTsx(entry: string, options: { env?: Record<string, string> } = {}): Child {
  const child = spawn(TSX, ['--disable-warning=ExperimentalWarning', entry], {
    cwd: REPOSITORY_ROOT,
    env: {
      ...process.env,
      PATH: `${join(REPOSITORY_ROOT, 'node_modules', '.bin')}${delimiter}${process.env['PATH'] ?? ''}`,
      ...options.env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${entry}`);
  const pid = child.pid;
  const messages: ChildMessage[] = [];
  const waiters: { type: string; resolve: (message: ChildMessage) => void }[] = [];
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > 60) tail.shift();
  };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith(MESSAGE_PREFIX)) return remember(line);
    const message = JSON.parse(line.slice(MESSAGE_PREFIX.length)) as ChildMessage;
    messages.push(message);
    for (const waiter of waiters.filter((w) => w.type === message.type)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  });
  createInterface({ input: child.stderr! }).on('line', remember);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const kill = (signal: NodeJS.Signals = 'SIGTERM') => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  return {
    exited,
    kill,
    recentOutput: () => tail.join('\n'),
    waitFor: <T>(type: string, timeoutMs = 120_000) => {
      const seen = messages.find((message) => message.type === type);
      if (seen) return Promise.resolve(seen as unknown as T);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${entry}: no "${type}" within ${timeoutMs} ms\n${tail.join('\n')}`)),
          timeoutMs,
        );
        timer.unref();
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`${entry} exited (${code}) before "${type}"\n${tail.join('\n')}`));
        });
        waiters.push({
          type,
          resolve: (message) => {
            clearTimeout(timer);
            resolve(message as unknown as T);
          },
        });
      });
    },
    stop: async (graceMs = 10_000) => {
      if (child.exitCode === null && child.signalCode === null) {
        kill('SIGTERM');
        const timer = setTimeout(() => kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      // The group may outlive its leader (a JVM the child started, if the child crashed): nothing is left.
      kill('SIGKILL');
    },
  };
}

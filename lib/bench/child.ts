/**
 * Child processes of the bench and of the reliability tests: a TypeScript entry run by the repository's tsx, in
 * a process group of its own so that a kill takes everything it started (DynamoDB Local's JVM included). A child
 * answers with one JSON line behind MESSAGE_PREFIX; the rest of its output is kept for error messages.
 */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPOSITORY_ROOT } from '../repository-root.js';

const MESSAGE_PREFIX = '@@bench ';
const BIN = join(REPOSITORY_ROOT, 'node_modules', '.bin');
/** The Node 22 of the devDependencies (the `node` package), whatever node started the parent. */
export const NODE_22 = join(BIN, 'node');

/** The child's side: its answer to the parent. */
export const sendToParent = (message: object) =>
  void process.stdout.write(`${MESSAGE_PREFIX}${JSON.stringify(message)}\n`);

export type Child = ReturnType<typeof spawnTsx>;

export function spawnTsx(entry: string, env: Record<string, string> = {}) {
  const child = spawn(join(BIN, 'tsx'), ['--disable-warning=ExperimentalWarning', entry], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, PATH: `${BIN}${delimiter}${process.env['PATH'] ?? ''}`, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${entry}`);
  const pid = child.pid;
  const tail: string[] = [];
  const remember = (line: string) => tail.push(line) > 60 && tail.shift();
  let answered: (message: unknown) => void;
  const message = new Promise((resolve) => (answered = resolve));
  createInterface({ input: child.stdout }).on('line', (line) =>
    line.startsWith(MESSAGE_PREFIX) ? answered(JSON.parse(line.slice(MESSAGE_PREFIX.length))) : remember(line),
  );
  createInterface({ input: child.stderr }).on('line', remember);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  /** To the whole process group. */
  const kill = (signal: NodeJS.Signals = 'SIGTERM') => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  /** The child's last 60 lines of output that were not its answer. */
  const recentOutput = () => tail.join('\n');
  return {
    exited,
    kill,
    recentOutput,
    /** The child's answer; rejects when the child exits first or the time is up. */
    answer: <T>(timeoutMs: number) =>
      new Promise<T>((resolve, reject) => {
        const fail = (why: string) => reject(new Error(`${entry}: ${why}\n${recentOutput()}`));
        setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs).unref();
        void exited.then((code) => fail(`exited (${code}) before answering`));
        void message.then((value) => resolve(value as T));
      }),
    /** SIGTERM, SIGKILL after `graceMs`; then SIGKILL to what the group may have left (a JVM). */
    stop: async (graceMs = 10_000) => {
      if (child.exitCode === null && child.signalCode === null) {
        kill('SIGTERM');
        const timer = setTimeout(() => kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      kill('SIGKILL');
    },
  };
}

/**
 * Vitest global setup: marks every process of this run (workers, local stacks, DynamoDB Local JVMs inherit
 * the environment) and, when the run ends, kills any that is still alive: a test that failed or timed out
 * before its stack stopped must not leave a stack behind.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

const MARK = 'VGS_TEST_RUN';

export default function setup(): () => void {
  const run = randomUUID();
  process.env[MARK] = run;
  return () => {
    for (const pid of marked(`${MARK}=${run}`)) {
      const command = commandOf(pid);
      // Vitest's own processes (its workers, its watchdog) are its business.
      if (pid === process.pid || command.includes('vitest')) continue;
      try {
        process.kill(pid, 'SIGKILL');
        console.warn(`killed a process the tests left running: ${pid} ${command}`);
      } catch {
        // gone meanwhile
      }
    }
  };
}

/** Processes whose environment holds `entry` (Linux /proc; elsewhere none are found). */
function marked(entry: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
    } catch {
      return false;
    }
  });
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').slice(0, 120);
  } catch {
    return '';
  }
}

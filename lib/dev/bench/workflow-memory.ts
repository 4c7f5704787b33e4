/**
 * The workflow process's peak memory (its kernel high-water mark, VmHWM: every page it ever held, however
 * briefly) in a stack the bench started: what a burst of transfers costs it, now that the local stack holds
 * TransferVideo to its reserved concurrency (lib/dev/local/lambda-concurrency.ts). Linux only (/proc).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { StackProcess } from '../local/stack-child-client.js';

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** The workflow process, a child of the stack's process (lib/dev/local/workflow-process-client.ts forks it). */
function workflowPid(stack: StackProcess): number | undefined {
  const parent = stack.child.child.pid;
  const pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  return pids.map(Number).find((pid) => {
    const ppid = /^PPid:\s+(\d+)/m.exec(read(`/proc/${pid}/status`))?.[1];
    return Number(ppid) === parent && read(`/proc/${pid}/cmdline`).includes('workflow-process');
  });
}

/** MiB, or NaN where /proc cannot tell. */
export function workflowPeakRssMiB(stack: StackProcess): number {
  const pid = workflowPid(stack);
  const kib = pid === undefined ? undefined : /^VmHWM:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`))?.[1];
  return kib === undefined ? Number.NaN : Number(kib) / 1024;
}

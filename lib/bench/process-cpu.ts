/**
 * CPU time (user + system) of the Node processes under a child's process tree, from /proc: the bench's
 * servers run under a tsx launcher, and the local stack's tree also holds the DynamoDB Local JVM, which
 * is left out (only processes named `node` count). Linux only; elsewhere it answers undefined.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime/stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  cpuTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces: the fields after the last ')' are fixed.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), comm, cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/**
 * Milliseconds of CPU used so far by the `node` processes in the tree under `rootPid` (itself included),
 * leaving out the subtrees under `excludePids` (the local stack's workflow process, counted apart).
 */
export function nodeTreeCpuMs(rootPid: number, excludePids: number[] = []): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const stats = entries
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);
  const inTree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const stat of stats) {
      if (!inTree.has(stat.pid) && inTree.has(stat.ppid) && !excludePids.includes(stat.pid)) {
        inTree.add(stat.pid);
        grew = true;
      }
    }
  }
  const ticks = stats
    .filter((stat) => inTree.has(stat.pid) && stat.comm === 'node')
    .reduce((total, stat) => total + stat.cpuTicks, 0);
  return (ticks / TICKS_PER_SECOND) * 1000;
}

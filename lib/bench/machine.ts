/** What the numbers were measured on (machine, load, Node, date, commit): the report's header line. */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { NODE_22 } from './child.js';

export interface MachineInfo {
  date: string;
  commit: string;
  /** Paths changed but not committed, the bench's own output aside. */
  uncommitted: number;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  loadAverage: number[];
}

export function machineInfo(): MachineInfo {
  // Empty outside a git checkout (a tarball of the repository).
  const git = (...args: string[]) => spawnSync('git', args, { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).stdout.trim();
  return {
    date: new Date().toISOString(),
    commit: git('rev-parse', 'HEAD') || 'unknown',
    uncommitted: git('status', '--porcelain')
      .split('\n')
      .filter((line) => line && !line.includes('test/bench/')).length,
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: cpus().length,
    memoryGiB: totalmem() / 2 ** 30,
    node: execFileSync(NODE_22, ['--version'], { encoding: 'utf8' }).trim(),
    loadAverage: loadavg(),
  };
}

/** All cores' time since boot, in ms: busy (anything but idle) and in all. Two readings give a window's load. */
export function cpuTimes(): { busyMs: number; totalMs: number } {
  let busyMs = 0;
  let totalMs = 0;
  for (const { times } of cpus()) {
    const total = times.user + times.nice + times.sys + times.irq + times.idle;
    totalMs += total;
    busyMs += total - times.idle;
  }
  return { busyMs, totalMs };
}

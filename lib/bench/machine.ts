/** What the numbers were measured on: machine, load, versions, date and commit. */
import { spawnSync } from 'node:child_process';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { NODE_22 } from './child.js';

export interface MachineInfo {
  date: string;
  commit: string;
  /** Uncommitted paths (git status), the bench's own files (which write this report) left out. */
  uncommitted: string[];
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  freeMemoryGiB: number;
  os: string;
  node: string;
  java: string;
  loadAverage: number[];
}

/** stdout then stderr (`java -version` prints to stderr); empty when the command is missing. */
function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { cwd: REPOSITORY_ROOT, encoding: 'utf8' });
  return `${result.stdout ?? ''}${result.stderr ?? ''}`;
}

export function machineInfo(): MachineInfo {
  const own = /^(bin\/bench\.ts|lib\/bench\/|test\/bench\/|test\/reliability\/)/;
  const uncommitted = run('git', ['status', '--porcelain'])
    .split('\n')
    .map((line) => line.slice(3).trim())
    .filter((path) => path && !own.test(path));
  return {
    date: new Date().toISOString(),
    commit: run('git', ['rev-parse', 'HEAD']).trim().split('\n')[0] || 'unknown',
    uncommitted,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: totalmem() / 1024 ** 3,
    freeMemoryGiB: freemem() / 1024 ** 3,
    os: `${platform()} ${release()}`,
    node: run(NODE_22, ['--version']).trim(),
    java: run('java', ['-version']).split('\n')[0]?.trim() ?? 'unknown',
    loadAverage: loadavg(),
  };
}

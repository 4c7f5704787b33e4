/**
 * lib/dev/bench/RESULTS.md from results.json: sections hand over data (figures beside their targets, table rows, chart
 * series), rendered here as Markdown tables and Mermaid charts. How to read it: lib/dev/bench/README.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { format, resolveConfig } from 'prettier';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';

/** A figure as measured, beside its target (none: no verdict). */
type Check = { figure: string; measured: string; target?: string; pass?: boolean };
type Table = { head: string[]; rows: (string | number | null)[][] };
/** Bars, and optionally a line (a target, or a second series named in the title); `flip`: horizontal. */
type Chart = { title: string; axis: string; labels: string[]; bars: number[]; line?: number[]; flip?: boolean };
export type Section = { title?: string; checks: Check[]; blocks?: (Table | Chart)[] };

const TITLES = {
  cold: '1. Cold start: bundle size and import time',
  transfer: '2. Transfer memory: a video streamed into S3',
  cost: '3. Lifecycle cost model',
  tasks: '4. Whole tasks: 1,000 at once',
  capacity: '5. Upstream capacity',
  refusal: '6. Sustained refusal: every create refused, then recovery',
  submits: '8. Submits of one account at once: no busy refusals, money exact',
  completion: '7. Completion latency: job succeeded → task success',
};
export type SectionName = keyof typeof TITLES;
/** The Node 22 of the devDependencies (the `node` package), whatever node started the bench. */
export const NODE_22 = join(REPOSITORY_ROOT, 'node_modules', '.bin', 'node');

export type BenchResults = Partial<Record<SectionName, Section>> & {
  machine: ReturnType<typeof machineInfo>;
  durationSeconds: number;
  loadAtEnd: number[];
  /** Section → the error that stopped it. */
  errors: Record<string, string>;
  /** Sections measured by a later `--only=… --merge` run → when, at which commit, under what load. */
  merged?: Record<string, string>;
};

/** What the numbers were measured on: the report's header line. */
export function machineInfo() {
  // Empty outside a git checkout (a tarball of the repository).
  const git = (...args: string[]) => spawnSync('git', args, { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).stdout.trim();
  return {
    date: new Date().toISOString(),
    commit: git('rev-parse', 'HEAD') || 'unknown',
    /** Paths changed but not committed, the bench's own output aside. */
    uncommitted: git('status', '--porcelain')
      .split('\n')
      .filter((line) => line && !line.includes('lib/dev/bench/')).length,
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: cpus().length,
    memoryGiB: totalmem() / 2 ** 30,
    node: execFileSync(NODE_22, ['--version'], { encoding: 'utf8' }).trim(),
    loadAverage: loadavg(),
  };
}

export const check = (figure: string, measured: string, target?: string, pass?: boolean): Check => ({
  figure,
  measured,
  target,
  pass,
});
export const MiB = 2 ** 20;
export const fixed = (value: number, digits = 1) => value.toFixed(digits);
export const seconds = (value: number, digits = 1) => `${value.toFixed(digits)} s`;
export const percent = (share: number) => `${(share * 100).toFixed(0)} %`;
export const cny = (units: number) => (units / 10_000).toFixed(4);
export const usd = (value: number, digits = 3) => `$${(value * 1000).toFixed(digits)}`;
export const counts = (values: Record<string, number>) =>
  Object.entries(values)
    .map(([what, n]) => `; ${n}× ${what.replaceAll('`', "'")}`)
    .join('');

/** A table's data: one column per entry, header → the cell of a row. */
export function table<R>(rows: R[], columns: Record<string, (row: R) => string | number | undefined>): Table {
  const head = Object.keys(columns);
  return { head, rows: rows.map((row) => head.map((h) => columns[h]!(row) ?? null)) };
}

const line = (cells: unknown[]) => `| ${cells.map((c) => String(c ?? '–').replaceAll('|', '\\|')).join(' | ')} |`;
const markdown = ({ head, rows }: Table) => [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');

// Undefined members are left out of results.json.
export const chart = (title: string, axis: string, labels: string[], bars: number[], line?: number[], flip?: true) =>
  ({ title, axis, labels, bars, line, flip }) satisfies Chart;
function mermaid({ title, labels, axis, bars, line, flip }: Chart) {
  const list = (values: number[]) => `[${values.map((value) => Number(value.toPrecision(4))).join(', ')}]`;
  const highest = Math.max(1, ...bars, ...(line ?? [])) * 1.1;
  const step = 10 ** (Math.floor(Math.log10(highest)) - 1);
  const top = Number((Math.ceil(highest / step) * step).toPrecision(2));
  const axes = [`  x-axis [${labels.map((label) => `"${label}"`).join(', ')}]`, `  y-axis "${axis}" 0 --> ${top}`];
  const series = [`  bar ${list(bars)}`, ...(line ? [`  line ${list(line)}`] : [])];
  const kind = `xychart-beta${flip ? ' horizontal' : ''}`;
  return ['```mermaid', kind, `  title "${title}"`, ...axes, ...series, '```'].join('\n');
}

export const verdict = (c: Check) => (c.pass === undefined ? '–' : c.pass ? '✅ met' : '❌ missed');

export async function renderReport(r: BenchResults, file: string): Promise<string> {
  const names = Object.keys(TITLES) as SectionName[];
  const judged = names.flatMap((name) => r[name]?.checks ?? []).filter((c) => c.pass !== undefined);
  const failed = names.filter((name) => r.errors[name]);
  const m = r.machine;
  const header = [
    `${m.date.slice(0, 16).replace('T', ' ')} UTC`,
    `commit \`${m.commit.slice(0, 10)}\`${m.uncommitted ? ` (+${m.uncommitted} uncommitted paths)` : ''}`,
    `${m.cpu}, ${m.cores} cores, ${fixed(m.memoryGiB, 0)} GiB, Node ${m.node}`,
    `load ${fixed(m.loadAverage[0]!)} → ${r.loadAtEnd[0]?.toFixed(1)}`,
    seconds(r.durationSeconds, 0),
    `**${judged.filter((c) => c.pass).length} of ${judged.length} targets met${failed.length ? `; failed: ${failed.join(', ')}` : ''}**`,
    '[how to read](README.md)',
  ].join(' · ');
  const merged = Object.entries(r.merged ?? {}).map(([name, when]) => `Section ${name} measured later: ${when}.`);
  const body = names.map((name) => {
    const [section, error] = [r[name], r.errors[name]];
    const title = `## ${section?.title ?? TITLES[name]}`;
    if (!section) return `${title}\n\n${error ? `Failed:\n\n\`\`\`\n${error}\n\`\`\`` : 'Not run.'}`;
    const checks = section.checks.map((c) => [c.figure, c.measured, c.target ?? '–', verdict(c)]);
    const blocks = (section.blocks ?? []).map((b) => ('head' in b ? markdown(b) : mermaid(b)));
    const figures = markdown({ head: ['Figure', 'Measured', 'Target', 'Verdict'], rows: checks });
    return [title, figures, ...blocks].join('\n\n');
  });
  const text = ['# Bench results', header, ...merged, ...body].join('\n\n');
  return format(text, { ...(await resolveConfig(file)), filepath: file });
}

/** The admin CLI's help: the list of commands, and one command's usage with its details. */
import { MAX_YUAN_TEXT } from './arguments.js';
import type { Command } from './command.js';

export const PROGRAM = 'npm run --silent admin --';

export function usage(commands: Record<string, Command>): string {
  return [
    `Usage: ${PROGRAM} <command> [options]     (<command> --help: that command's help)`,
    '',
    ...Object.entries(commands).flatMap(([name, command]) => [`  ${name} ${command.args}`, `      ${command.summary}`]),
    '',
    `Money is yuan with at most 4 decimals; a balance, top-up or quota is at most ${MAX_YUAN_TEXT} CNY.`,
    'Target: the running local stack (npm start), or AWS when TABLE_PREFIX (or ACCOUNTS_TABLE, …) is set.',
    'Exit code: 0 done; 2 a bad argument or a refusal (unknown account or key, …); 1 anything else.',
  ].join('\n');
}

export function commandHelp(name: string, command: Command): string {
  const details = command.details?.split('\n').map((line) => `  ${line}`) ?? [];
  return [`Usage: ${PROGRAM} ${name} ${command.args}`, '', `  ${command.summary}`, ...details].join('\n');
}

/**
 * The admin CLI's entry: finds the command, answers help, checks the arguments, then runs it. Arguments are
 * checked before anything is read or written, so a bad one costs one line on stderr and exit code 2, never a
 * stack trace, and needs no running stack. bin/admin.ts only hands it argv; the commands are in commands/.
 */
import { InvalidAmountError } from '../../../functions/core/money.js';
import { parseCommandLine } from './cli/arguments.js';
import type { AdminOutput, Command, Session } from './cli/command.js';
import { openSession } from './cli/session.js';
import { commandHelp, PROGRAM, usage } from './cli/usage.js';
import { COMMANDS } from './commands/registry.js';
import { AdminError, TargetError, UsageError } from './errors.js';

export type { AdminOutput } from './cli/command.js';

/** Runs one command line; returns the exit code. Errors are one line on `err`. */
export async function runAdmin(argv: readonly string[], output: AdminOutput): Promise<number> {
  let destroy = () => {};
  try {
    const [name, ...rest] = argv;
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      const topic = name === undefined ? undefined : rest[0];
      if (topic === undefined) output.out(usage(COMMANDS));
      else output.out(commandHelp(topic, commandNamed(topic)));
      return 0;
    }
    if (name.startsWith('-')) throw new UsageError(`expected a command before ${name} (${PROGRAM} --help lists them)`);
    const command = commandNamed(name);
    if (rest.includes('--help') || rest.includes('-h')) {
      output.out(commandHelp(name, command));
      return 0;
    }
    const args = parseCommandLine(name, command, rest);
    const open = async (): Promise<Session> => {
      const opened = await openSession();
      destroy = opened.destroy;
      return opened.session;
    };
    return (await command.run(args, open, output)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof AdminError || error instanceof InvalidAmountError) {
      output.err(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof TargetError) {
      output.err(`error: ${error.message}`);
      return 1;
    }
    output.err(`error: ${(error as Error).stack ?? String(error)}`);
    return 1;
  } finally {
    destroy();
  }
}

function commandNamed(name: string): Command {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`unknown command "${name}" (${PROGRAM} --help lists them)`);
  return command;
}

/**
 * A command's arguments (node:util parseArgs, strict) and the checks every command shares: each failure is a
 * UsageError of one line naming the command and the option, never a stack trace.
 */
import { parseArgs } from 'node:util';
import { isWellFormedApiKey } from '../../../../functions/core/api-key.js';
import {
  InvalidAmountError,
  MAX_BALANCE_UNITS,
  MAX_BALANCE_YUAN,
  yuanToUnits,
} from '../../../../functions/core/money.js';
import { UsageError } from '../errors.js';

export const MAX_YUAN_TEXT = MAX_BALANCE_YUAN.toLocaleString('en-US');

/** What a command takes. */
export interface CommandOptions {
  /** Its options, all taking a value. */
  options?: readonly string[];
  /** Its options that take no value (`--dry-run`). */
  flags?: readonly string[];
  /** Takes the account id as a positional argument too (`account:show acme`). */
  accountPositional?: boolean;
}

/** The command's options, strictly: an unknown, repeated or value-less option is a UsageError naming it. */
export function parseCommandLine(name: string, command: CommandOptions, argv: string[]): Arguments {
  const names = command.options ?? [];
  const options: Record<string, { type: 'string'; multiple: true } | { type: 'boolean' }> = {};
  for (const option of [...names, ...(command.accountPositional ? ['account'] : [])]) {
    options[option] = { type: 'string', multiple: true };
  }
  for (const flag of command.flags ?? []) options[flag] = { type: 'boolean' };
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: command.accountPositional === true, strict: true });
  } catch (error) {
    throw new UsageError(`${name}: ${parseArgsMessage(error as Error & { code?: string }, Object.keys(options))}`);
  }
  return new Arguments(name, parsed.values as Record<string, string[] | boolean | undefined>, parsed.positionals);
}

function parseArgsMessage(error: Error & { code?: string }, known: string[]): string {
  const option = /'(-[^' ,]+|--[^' ]+)/.exec(error.message)?.[1] ?? /'([^']*)'/.exec(error.message)?.[1] ?? '';
  const takes = known.length > 0 ? `it takes ${known.map((name) => `--${name}`).join(', ')}` : 'it takes no options';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option}; ${takes}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `${option} needs a value (one that starts with "-" is written ${option}=-…)`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${option}"; ${takes}`;
    default:
      return error.message.split('\n')[0] ?? error.message;
  }
}

export class Arguments {
  constructor(
    private readonly command: string,
    private readonly values: Record<string, string[] | boolean | undefined>,
    private readonly positionals: string[],
  ) {}

  /** A flag (an option without a value): given or not. */
  flag(name: string): boolean {
    return this.values[name] === true;
  }

  optional(name: string): string | undefined {
    const given = this.values[name];
    if (given === undefined || typeof given === 'boolean') return undefined;
    if (given.length > 1) this.fail(`--${name} is given ${given.length} times`);
    const value = given[0]!.trim();
    if (value === '') this.fail(`--${name} is empty`);
    return value;
  }

  fail(message: string): never {
    throw new UsageError(`${this.command}: ${message}`);
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) this.fail(`--${name} is required`);
    return value;
  }

  /** An amount of money in yuan, within the balance bound: its units. */
  money(name: string): number {
    return this.moneyText(name, this.required(name));
  }

  /** `text` (the option's value, or a part of it) as units, within the balance bound. */
  moneyText(name: string, text: string): number {
    let units: number;
    try {
      units = yuanToUnits(text);
    } catch (error) {
      if (error instanceof InvalidAmountError) this.fail(`--${name}: ${error.message}`);
      throw error;
    }
    if (units > MAX_BALANCE_UNITS) this.fail(`--${name} must be at most ${MAX_YUAN_TEXT} CNY`);
    return units;
  }

  /** The account id, as `<command> ID` or `--account ID`. */
  account(): string {
    const flag = this.optional('account');
    if (this.positionals.length > 1 || (flag !== undefined && this.positionals.length > 0)) {
      this.fail(`one account id, please (${this.command} ID)`);
    }
    const id = flag ?? this.positionals[0];
    if (!id) this.fail(`the account id is required (${this.command} ID)`);
    return id;
  }

  /** `--key`: a key id (key_…) or the key itself (bc_…). */
  key(): string {
    const key = this.required('key');
    if (!/^key_[A-Za-z0-9]+$/.test(key) && !isWellFormedApiKey(key)) {
      this.fail('--key must be a key id (key_…) or the key itself (bc_…)');
    }
    return key;
  }
}

/**
 * The options of a command (`npm start`, `npm run bench`, `npm run sam:env`), which declares `help`: `--help`
 * prints its usage and exits 0; an unknown or malformed option prints the problem and the usage and exits 2,
 * with no stack trace.
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']> & { help: { type: 'boolean'; short: 'h' } };

export function commandOptions<const O extends Options>(usage: string, options: O) {
  let parsed;
  try {
    parsed = parseArgs<{ options: O }>({ options });
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed.values;
}

/** The model catalog commands: seed the catalog, and deprecate, retire or restore a model. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../../repository-root.js';
import type { Command } from '../cli/command.js';
import { UsageError } from '../errors.js';

export const DEFAULT_CATALOG = join(REPOSITORY_ROOT, 'lib/ship/seed/model-catalog.json');

export const MODEL_COMMANDS: Record<string, Command> = {
  'models:seed': {
    args: '[--file PATH]',
    summary: 'write the model catalog (default lib/ship/seed/model-catalog.json)',
    options: ['file'],
    async run(args, open, output) {
      const file = args.optional('file') ?? DEFAULT_CATALOG;
      // Read before connecting: a bad file is a usage error, whether or not a stack is running.
      const catalog = readCatalog(file);
      const count = await (await open()).store.seedModels(catalog);
      output.out(`wrote ${count} models from ${file}`);
    },
  },
  'models:deprecate': {
    args: '--model NAME --sunset DATE [--replacement NAME] [--from DATE]',
    summary: 'deprecate a model (from now, or DATE): still made until the sunset, then refused; submits say so',
    details:
      'DATE: ISO 8601 (2027-01-31 or 2027-01-31T09:00:00Z). Submits to it answer with Deprecation and Sunset headers;\n' +
      'GET /models shows both. Warm functions see the change within 30 s (their catalog cache).',
    options: ['model', 'sunset', 'replacement', 'from'],
    async run(args, open, output) {
      const name = args.required('model');
      const sunset = isoDate('sunset', args.required('sunset'));
      const from = isoDate('from', args.optional('from') ?? new Date().toISOString());
      if (Date.parse(sunset) <= Date.parse(from)) throw new UsageError('--sunset must come after the deprecation');
      const replacement = args.optional('replacement') ?? null;
      const { store } = await open();
      const record = await store.setModelLifecycle(name, {
        deprecated_at: from,
        sunset_at: sunset,
        replacement,
        retired_at: null,
      });
      output.out(
        `${record.name} deprecated from ${from}, sunset ${sunset}${replacement ? `; use ${replacement}` : ''}`,
      );
    },
  },
  'models:retire': {
    args: '--model NAME [--replacement NAME]',
    summary: 'retire a model now: submits to it are refused with a 400 naming it (nothing charged)',
    options: ['model', 'replacement'],
    async run(args, open, output) {
      const name = args.required('model');
      const replacement = args.optional('replacement');
      const now = new Date().toISOString();
      const { store } = await open();
      await store.setModelLifecycle(name, { retired_at: now, ...(replacement ? { replacement } : {}) });
      output.out(`${name} retired at ${now}`);
    },
  },
  'models:restore': {
    args: '--model NAME',
    summary: 'undo a deprecation or retirement: the model is active again',
    options: ['model'],
    async run(args, open, output) {
      const name = args.required('model');
      const cleared = { deprecated_at: null, sunset_at: null, retired_at: null, replacement: null };
      await (await open()).store.setModelLifecycle(name, cleared);
      output.out(`${name} is active`);
    },
  },
};

export function readCatalog(file: string): { version: number; models: unknown[] } {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { version: number; models: unknown[] };
  } catch (error) {
    throw new UsageError(`cannot read the catalog ${file}: ${(error as Error).message}`);
  }
}

/** An ISO 8601 date or time, as the catalog stores it (UTC, with milliseconds). */
function isoDate(option: string, text: string): string {
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text)
    ? Date.parse(text)
    : NaN;
  if (Number.isNaN(at)) throw new UsageError(`--${option} must be an ISO 8601 date such as 2027-01-31, not "${text}"`);
  return new Date(at).toISOString();
}

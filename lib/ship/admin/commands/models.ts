/** The model catalog commands: seed the catalog, and deprecate, retire or restore a model. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../../repository-root.js';
import type { Command } from '../cli/command.js';
import { UsageError } from '../errors.js';

export const DEFAULT_CATALOG = join(REPOSITORY_ROOT, 'lib/ship/seed/model-catalog.json');

/** An upstream may retire a model on one platform only (docs/providers/ark.md, "Models per platform"). */
const PLATFORM_DETAILS =
  "--platform NAME (a platform of the model's provider, e.g. byteplus): only stacks calling that platform see the\n" +
  'change; a model retired on its platform is not listed by GET /models there.';

const on = (platform: string | undefined) => (platform === undefined ? '' : ` on ${platform}`);

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
    args: '--model NAME --sunset DATE [--replacement NAME] [--from DATE] [--platform NAME]',
    summary: 'deprecate a model (from now, or DATE): still made until the sunset, then refused; submits say so',
    details:
      'DATE: ISO 8601 (2027-01-31 or 2027-01-31T09:00:00Z). Submits to it answer with Deprecation and Sunset headers;\n' +
      'GET /models shows both. Warm functions see the change within 30 s (their catalog cache).\n' +
      PLATFORM_DETAILS,
    options: ['model', 'sunset', 'replacement', 'from', 'platform'],
    async run(args, open, output) {
      const name = args.required('model');
      const sunset = isoDate('sunset', args.required('sunset'));
      const from = isoDate('from', args.optional('from') ?? new Date().toISOString());
      if (Date.parse(sunset) <= Date.parse(from)) throw new UsageError('--sunset must come after the deprecation');
      const replacement = args.optional('replacement') ?? null;
      const platform = args.optional('platform');
      const { store } = await open();
      const change = { deprecated_at: from, sunset_at: sunset, replacement, retired_at: null };
      const record = await store.setModelLifecycle(name, change, platform);
      output.out(
        `${record.name} deprecated${on(platform)} from ${from}, sunset ${sunset}${replacement ? `; use ${replacement}` : ''}`,
      );
    },
  },
  'models:retire': {
    args: '--model NAME [--replacement NAME] [--platform NAME] [--at DATE]',
    summary: 'retire a model now (or at DATE): submits to it are refused with a 400 naming it (nothing charged)',
    details: PLATFORM_DETAILS,
    options: ['model', 'replacement', 'platform', 'at'],
    async run(args, open, output) {
      const name = args.required('model');
      const replacement = args.optional('replacement');
      const platform = args.optional('platform');
      const at = isoDate('at', args.optional('at') ?? new Date().toISOString());
      const { store } = await open();
      await store.setModelLifecycle(name, { retired_at: at, ...(replacement ? { replacement } : {}) }, platform);
      output.out(`${name} retired${on(platform)} at ${at}`);
    },
  },
  'models:restore': {
    args: '--model NAME [--platform NAME]',
    summary: 'undo a deprecation or retirement (of one platform with --platform): the model is active again',
    options: ['model', 'platform'],
    async run(args, open, output) {
      const name = args.required('model');
      const platform = args.optional('platform');
      const cleared = { deprecated_at: null, sunset_at: null, retired_at: null, replacement: null };
      await (await open()).store.setModelLifecycle(name, cleared, platform);
      output.out(`${name} is active${on(platform)}`);
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

/** models:margins: our price, the upstream's cost and the margin per option set of the catalog (no stack). */
import { unitsToYuanText } from '../../../../functions/core/money.js';
import { catalogVideoModel } from '../../../../functions/providers/registry.js';
import type { Command } from '../cli/command.js';
import { table } from '../cli/table.js';
import { UsageError } from '../errors.js';
import { optionSets, worstMargins } from '../margins.js';
import type { OptionSet } from '../margins.js';
import { readUpstreamPrices } from '../upstream-cost.js';
import { DEFAULT_CATALOG, readCatalog } from './models.js';

export const MODEL_MARGIN_COMMANDS: Record<string, Command> = {
  'models:margins': {
    args: '[--file PATH] [--model NAME]',
    summary: "our price, the upstream's cost and the margin for every option set of the catalog (no stack needed)",
    details:
      'Without --model: the worst case per model, platform, resolution, audio and video input.\n' +
      'With --model: every option set of that model. Costs: lib/ship/seed/upstream-prices.json.',
    options: ['file', 'model'],
    async run(args, _open, output) {
      const models = readCatalog(args.optional('file') ?? DEFAULT_CATALOG).models.map((model) =>
        catalogVideoModel(model),
      );
      const only = args.optional('model');
      if (only !== undefined && !models.some((model) => model.record.name === only)) {
        throw new UsageError(`no model ${only} in the catalog`);
      }
      const prices = readUpstreamPrices();
      const sets = models
        .filter((model) => only === undefined || model.record.name === only)
        .flatMap((model) => optionSets(model, prices));
      const rows = only === undefined ? worstMargins(sets) : sets;
      table(output, [
        ['model', 'platform', 'res', 'ratio', 's', 'audio', 'videos', 'audios', 'price', 'cost', 'margin', ''],
        ...rows.map((set) => [
          set.model,
          set.platform,
          set.resolution,
          set.ratio,
          String(set.duration),
          set.generateAudio ? 'yes' : 'no',
          String(set.videos),
          String(set.audios),
          unitsToYuanText(set.priceUnits),
          unitsToYuanText(set.costUnits),
          marginText(set),
          set.priceUnits < set.costUnits ? 'BELOW COST' : '',
        ]),
      ]);
      const below = sets.filter((set) => set.priceUnits < set.costUnits).length;
      output.err(
        `${sets.length} option sets, ${below} below cost; prices of ${prices.updated} (lib/ship/seed/upstream-prices.json)`,
      );
    },
  },
};

function marginText(set: OptionSet): string {
  const margin = set.priceUnits - set.costUnits;
  const percent = set.costUnits === 0 ? '' : ` (${Math.round((margin / set.costUnits) * 100)}%)`;
  return `${margin < 0 ? '-' : ''}${unitsToYuanText(Math.abs(margin))}${percent}`;
}

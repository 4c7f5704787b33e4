/**
 * The README's model table is what a customer reads before paying: it must match the seeded catalog
 * (names, durations, resolutions, sound, prices) and each model's upstream ids.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { supportedResolutions } from '../../functions/core/video-model.js';
import { catalogVideoModel } from '../../functions/providers/registry.js';
import { catalogRecords } from './support.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const rows = new Map(
  README.split('\n')
    .filter((line) => /^\| `[a-z0-9][a-z0-9.-]*` /.test(line))
    .map((line) => [/^\| `([^`]+)`/.exec(line)?.[1] ?? '', line] as const),
);

describe.each(catalogRecords().map((record) => catalogVideoModel(record)))('README row of $record.name', (model) => {
  const row = () => rows.get(model.record.name) ?? '';

  it('exists', () => expect(rows.has(model.record.name)).toBe(true));

  it('names the upstream ids on both platforms', () => {
    for (const id of Object.values(model.upstream.ids)) expect(row()).toContain(`\`${id}\``);
  });

  it('states the durations, resolutions and sound the gateway allows', () => {
    const { fixed_duration: fixed, max_duration: max } = model.record;
    expect(row()).toContain(fixed ? `fixed ${fixed} s` : `5–${max} s`);
    const resolutions = supportedResolutions(model);
    const text = resolutions.length > 2 ? `${resolutions[0]}–${resolutions.at(-1)}` : resolutions.join(', ');
    expect(row()).toContain(text);
    expect(row()).toMatch(model.upstream.audio ? /\| yes +\|/ : /\| no +\|/);
  });

  it('states the prices', () => {
    const { pricing, billing_mode: mode } = model.record;
    if (mode === 'per_call') expect(row()).toContain(`${pricing.price_per_call} × ${pricing.quality_multiplier}`);
    else expect(row()).toContain(`${pricing.price_per_second} CNY/s`);
    if (pricing.material_surcharge !== '0') expect(row()).toContain(`+ ${pricing.material_surcharge} per video/audio`);
    if (pricing.audio_extra !== '0') expect(row()).toContain(`+ ${pricing.audio_extra} with sound`);
  });
});

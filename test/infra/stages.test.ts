/**
 * Stages (lib/ship/cdk/stages.ts): cdk.json's `stages` give each of dev, staging and prod its account, Region,
 * prefix, alarm target and limits; the committed default stage binds the stacks to its account and Region; a
 * top-level key still wins; tables, buckets and secrets are strong (exported) references.
 */
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromContext } from '../../lib/ship/cdk/stack-context.js';
import { STAGE_NAMES } from '../../lib/ship/cdk/stages.js';
import type { SynthesizedService } from './synth.js';
import { cdkJson, synthesizeService } from './synth.js';

const context = cdkJson().context as Record<string, unknown> & {
  stage: string;
  stages: Record<string, Record<string, unknown>>;
};
const configWith = (extra: Record<string, unknown>) =>
  configFromContext(new App({ context: { ...context, ...extra } }));

let service: SynthesizedService;
beforeAll(() => {
  service = synthesizeService();
}, 300_000);
afterAll(() => service?.cleanup());

describe('settings by stage', () => {
  it('cdk.json names every stage, each with an account, a Region and a prefix of its own', () => {
    expect(Object.keys(context.stages).sort()).toEqual([...STAGE_NAMES].sort());
    const prefixes = STAGE_NAMES.map((stage) => configWith({ stage }).prefix);
    expect(new Set(prefixes).size).toBe(STAGE_NAMES.length);
    for (const stage of STAGE_NAMES) {
      const config = configWith({ stage });
      expect(config.env?.account).toMatch(/^\d{12}$/);
      expect(config.env?.region).toBe(context.stages[stage]?.['region']);
      expect(config.alarms).toBeDefined();
    }
  });

  it('a key given at the top level (-c) wins over the stage; an unknown stage is refused', () => {
    expect(configWith({ stage: 'dev', prefix: 'mine' }).prefix).toBe('mine');
    expect(configWith({ stage: 'prod', alarmsTo: '' }).alarms).toBeUndefined();
    expect(() => configWith({ stage: 'qa' })).toThrow(/dev, staging, prod/);
  });

  it('binds the stacks of the committed default stage to its account and Region', () => {
    const { account, region } = context.stages[context.stage] as { account: string; region: string };
    for (const stack of [service.stacks.stateful, service.stacks.stateless, service.stacks.console]) {
      expect(stack.account).toBe(account);
      expect(stack.region).toBe(region);
    }
  });
});

describe('cross-stack references', () => {
  it('are strong (exports) for tables, buckets and secrets', () => {
    const exported = Object.values(service.statefulJson.Outputs ?? {}).flatMap((output) => {
      const value = (output as { Export?: unknown; Value: { Ref?: string; 'Fn::GetAtt'?: [string] } }).Value;
      if (!(output as { Export?: unknown }).Export) return [];
      const id = value.Ref ?? value['Fn::GetAtt']?.[0];
      return id ? [service.statefulJson.Resources[id]?.Type] : [];
    });
    expect(new Set(exported)).toEqual(
      new Set(['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret']),
    );
    const imports = JSON.stringify(service.statelessJson).match(/"Fn::ImportValue"/g) ?? [];
    expect(imports.length).toBeGreaterThan(0);
  });
});

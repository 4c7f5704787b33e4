/**
 * Synthesizes the service the way `cdk synth` does (cdk.json's context, the same stack code) into a
 * temporary directory, and answers questions about the templates. Each test file synthesizes once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { AppProps } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { configFromContext } from '../../lib/ship/cdk/stack-context.js';
import { addVideoService } from '../../lib/ship/cdk/video-service.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

export { REPOSITORY_ROOT };

export function cdkJson(): { app: string; context: Record<string, unknown> } {
  return JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'cdk.json'), 'utf8'));
}

/**
 * Runs `use` on a CDK app whose cloud assembly goes to a directory removed after: an app without `outdir`
 * makes a `cdk.out…` directory in the system's temporary directory and leaves it there.
 */
export function withApp<T>(props: Omit<AppProps, 'outdir'>, use: (app: App) => T): T {
  const outdir = mkdtempSync(join(tmpdir(), 'vgs-app-'));
  try {
    return use(new App({ ...props, outdir }));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export interface SynthOptions {
  /** Run esbuild for every function (slow); otherwise asset bundling is skipped, templates are the same. */
  readonly bundle?: boolean;
  /** Extra context, as `-c key=value` would give. */
  readonly context?: Record<string, unknown>;
  /**
   * Run CDK's built-in CloudFormation validation, as every real synth does (cdk.json makes its findings
   * errors). It costs most of a synthesis' CPU, so one test keeps it (video-service-stack.test.ts).
   */
  readonly validate?: boolean;
}

/** The context key that makes the built-in validation's findings errors (cdk.json). */
export const VALIDATE_ON_SYNTH = '@aws-cdk/core:validateAgainstDefaultRules';

export type CfnResource = { Type: string; Properties: Record<string, unknown>; [key: string]: unknown };

export interface SynthesizedService {
  readonly app: App;
  readonly outdir: string;
  readonly prefix: string;
  readonly stateful: Template;
  readonly stateless: Template;
  readonly statefulJson: { Resources: Record<string, CfnResource>; Outputs?: Record<string, { Value: unknown }> };
  readonly statelessJson: { Resources: Record<string, CfnResource>; Outputs?: Record<string, { Value: unknown }> };
  /** The customer console's stack (`<prefix>-console`). */
  readonly console: Template;
  readonly consoleJson: { Resources: Record<string, CfnResource>; Outputs?: Record<string, { Value: unknown }> };
  /** `<prefix>-edge` (us-east-1: web ACL, certificate), when the stage has domains; else no resources. */
  readonly edgeJson: { Resources: Record<string, CfnResource>; Outputs?: Record<string, { Value: unknown }> };
  /** The stateless stack's nested stack of versions, `live` aliases and deployment groups (live-rollouts.ts). */
  readonly rolloutsJson: { Resources: Record<string, CfnResource>; Outputs?: Record<string, { Value: unknown }> };
  readonly stacks: ReturnType<typeof addVideoService>;
  readonly cleanup: () => void;
}

export function synthesizeService(options: SynthOptions = {}): SynthesizedService {
  const outdir = mkdtempSync(join(tmpdir(), 'vgs-synth-'));
  const app = new App({
    outdir,
    builtinCloudFormationValidation: options.validate ?? false,
    context: {
      ...cdkJson().context,
      // The CLI's own switch for "bundle no stack" (`cdk synth --exclusively` uses it).
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...options.context,
    },
  });
  const config = configFromContext(app);
  const stacks = addVideoService(app, config);
  const assembly = app.synth();
  const statefulJson = assembly.getStackByName(stacks.stateful.stackName).template;
  const statelessJson = assembly.getStackByName(stacks.stateless.stackName).template;
  const consoleJson = assembly.getStackByName(stacks.console.stackName).template;
  const edgeJson = stacks.edge ? assembly.getStackByName(stacks.edge.stackName).template : { Resources: {} };
  const rollouts = stacks.stateless.rollouts;
  const rolloutsJson = rollouts
    ? JSON.parse(readFileSync(join(outdir, rollouts.templateFile), 'utf8'))
    : { Resources: {} };
  return {
    app,
    outdir,
    prefix: config.prefix,
    stacks,
    statefulJson,
    statelessJson,
    stateful: Template.fromJSON(statefulJson),
    stateless: Template.fromJSON(statelessJson),
    consoleJson,
    console: Template.fromJSON(consoleJson),
    rolloutsJson,
    edgeJson,
    cleanup: () => rmSync(outdir, { recursive: true, force: true }),
  };
}

/** Logical id and resource of the one resource of `type` whose property `key` equals `value`. */
export function resourceWith(
  template: { Resources: Record<string, CfnResource> },
  type: string,
  key: string,
  value: unknown,
): [string, CfnResource] {
  const found = Object.entries(template.Resources).filter(
    ([, resource]) => resource.Type === type && JSON.stringify(resource.Properties[key]) === JSON.stringify(value),
  );
  if (found.length !== 1)
    throw new Error(`expected one ${type} with ${key}=${JSON.stringify(value)}, got ${found.length}`);
  return found[0] as [string, CfnResource];
}

export function resourcesOfType(
  template: { Resources: Record<string, CfnResource> },
  type: string,
): [string, CfnResource][] {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

/**
 * What a value refers to in another stack of the service: `Fn::GetStackOutput` (weak cross-stack reference) or
 * `Fn::ImportValue` (strong: tables, buckets and secrets, stateful-stack.ts) → the output's value there, e.g.
 * `{ Ref: 'DataTasksTable…' }`. The stateful stack unless `from` says.
 */
export function crossStackTarget(
  service: SynthesizedService,
  value: unknown,
  from: 'stateful' | 'stateless' = 'stateful',
): unknown {
  const producer = from === 'stateful' ? service.statefulJson : service.statelessJson;
  const outputs = (producer.Outputs ?? {}) as Record<string, { Value: unknown; Export?: { Name: unknown } }>;
  const imported = (value as { 'Fn::ImportValue'?: unknown })['Fn::ImportValue'];
  if (typeof imported === 'string') {
    const output = Object.values(outputs).find((candidate) => candidate.Export?.Name === imported);
    if (!output || !imported.startsWith(`${service.stacks[from].stackName}:`)) throw new Error(`no export ${imported}`);
    return output.Value;
  }
  const reference = (value as { 'Fn::GetStackOutput'?: { StackName: string; OutputName: string } })[
    'Fn::GetStackOutput'
  ];
  if (!reference) throw new Error(`not a cross-stack reference: ${JSON.stringify(value)}`);
  if (reference.StackName !== service.stacks[from].stackName)
    throw new Error(`unexpected stack ${reference.StackName}`);
  const output = outputs[reference.OutputName];
  if (!output) throw new Error(`no output ${reference.OutputName}`);
  return output.Value;
}

/** The stateful resource a stateless value refers to (by `Ref` or `Fn::GetAtt`), as [logicalId, resource]. */
export function crossStackResource(service: SynthesizedService, value: unknown): [string, CfnResource] {
  const target = crossStackTarget(service, value) as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const logicalId = target.Ref ?? target['Fn::GetAtt']?.[0];
  const resource = logicalId ? service.statefulJson.Resources[logicalId] : undefined;
  if (!logicalId || !resource) throw new Error(`no resource behind ${JSON.stringify(target)}`);
  return [logicalId, resource];
}

/**
 * The logical id of the stateless stack's function whose `live` alias a stateless value names: an output of the
 * rollouts nested stack (live-rollouts.ts) → the alias there → its function, a parameter the parent passes.
 */
export function functionBehindAlias(service: SynthesizedService, value: unknown): string {
  const [nestedId, attribute] = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
  const nested = nestedId ? service.statelessJson.Resources[nestedId] : undefined;
  if (nested?.Type !== 'AWS::CloudFormation::Stack' || !attribute?.startsWith('Outputs.')) {
    throw new Error(`not an output of the rollouts stack: ${JSON.stringify(value)}`);
  }
  const output = service.rolloutsJson.Outputs?.[attribute.slice('Outputs.'.length)]?.Value as { Ref?: string };
  const alias = output?.Ref ? service.rolloutsJson.Resources[output.Ref] : undefined;
  if (alias?.Type !== 'AWS::Lambda::Alias') throw new Error(`no alias behind ${attribute}`);
  const parameter = (alias.Properties['FunctionName'] as { Ref: string }).Ref;
  const passed = (nested.Properties['Parameters'] as Record<string, { Ref?: string }>)[parameter];
  if (!passed?.Ref) throw new Error(`the parent passes no function as ${parameter}`);
  return passed.Ref;
}

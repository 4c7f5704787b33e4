/**
 * The deployment stages (`dev`, `staging`, `prod`) and each one's settings, in one place: cdk.json's context
 * `stages`, chosen by context `stage` (cdk.json names the default; `-c stage=prod`, or `npm run release -- --stage
 * prod`). A stage binds its stacks to its account and Region and gives the context keys of stack-context.ts
 * (prefix, alarm targets, limits, domains) their values; a key given at the top level (`-c key=value`) wins.
 */
import type { Environment } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { SetupError } from '../setup-error.js';

export const STAGE_NAMES = ['dev', 'staging', 'prod'] as const;
export type StageName = (typeof STAGE_NAMES)[number];
/** The context key choosing the stage, and the one holding every stage's settings. */
export const STAGE_CONTEXT = 'stage';
export const STAGES_CONTEXT = 'stages';

/** One stage's settings: its account and Region, and values of stack-context.ts's context keys. */
export interface StageSettings {
  readonly name: StageName;
  readonly env: Required<Pick<Environment, 'account' | 'region'>>;
  /** Context key → value (`prefix`, `alarmsTo`, `apiThrottleRate`, `domainName`, …), read under any top-level key. */
  readonly settings: Readonly<Record<string, unknown>>;
}

/** The chosen stage, or undefined when the context names none (stacks then stay environment-agnostic). */
export function stageFromContext(scope: Construct): StageSettings | undefined {
  const chosen: unknown = scope.node.tryGetContext(STAGE_CONTEXT);
  if (chosen === undefined || chosen === '') return undefined;
  if (!STAGE_NAMES.includes(chosen as StageName)) {
    throw new SetupError(`context ${STAGE_CONTEXT} "${String(chosen)}" must be one of ${STAGE_NAMES.join(', ')}`);
  }
  const name = chosen as StageName;
  const all = parsed(scope.node.tryGetContext(STAGES_CONTEXT)) as Record<string, unknown> | undefined;
  const entry = all?.[name] as Record<string, unknown> | undefined;
  if (!entry || typeof entry !== 'object') {
    throw new SetupError(`context ${STAGES_CONTEXT}.${name} is missing: give the stage's settings in cdk.json`);
  }
  const { account, region, ...settings } = entry;
  if (typeof account !== 'string' || !/^\d{12}$/.test(account)) {
    throw new SetupError(`context ${STAGES_CONTEXT}.${name}.account must be a 12-digit AWS account id`);
  }
  if (typeof region !== 'string' || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
    throw new SetupError(`context ${STAGES_CONTEXT}.${name}.region must be an AWS Region (e.g. eu-west-1)`);
  }
  if (typeof settings['prefix'] !== 'string') {
    throw new SetupError(`context ${STAGES_CONTEXT}.${name}.prefix must name the stage's stacks (e.g. vgs-${name})`);
  }
  return { name, env: { account, region }, settings };
}

/** `-c stages='{…}'` arrives as text. */
function parsed(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

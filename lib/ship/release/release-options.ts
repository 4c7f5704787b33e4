/**
 * `npm run release -- --stage <stage> [--approve-iam] [--dry-run]`: the release command's arguments, checked
 * before anything runs. The approval policy is explicit: a release that widens IAM (or security groups) stops
 * unless `--approve-iam` says a person reviewed the widening (docs/operations.md, "Releases").
 */
import { STAGE_NAMES } from '../cdk/stages.js';
import type { StageName } from '../cdk/stages.js';

export interface ReleaseOptions {
  readonly stage: StageName;
  /** A person reviewed what this release widens (IAM, security groups): deploy it without asking. */
  readonly approveIam: boolean;
  /** Print what would run, call nothing that changes AWS. */
  readonly dryRun: boolean;
}

export const RELEASE_USAGE = 'usage: npm run release -- --stage <dev|staging|prod> [--approve-iam] [--dry-run]';

export class ReleaseUsageError extends Error {}

export function releaseOptions(argv: readonly string[]): ReleaseOptions {
  let stage: string | undefined;
  let approveIam = false;
  let dryRun = false;
  for (let n = 0; n < argv.length; n += 1) {
    const arg = argv[n] as string;
    if (arg === '--approve-iam') approveIam = true;
    else if (arg === '--dry-run') dryRun = true;
    else if (arg === '--stage') stage = argv[(n += 1)];
    else if (arg.startsWith('--stage=')) stage = arg.slice('--stage='.length);
    else throw new ReleaseUsageError(`unknown argument "${arg}"; ${RELEASE_USAGE}`);
  }
  if (stage === undefined) throw new ReleaseUsageError(`--stage is required; ${RELEASE_USAGE}`);
  if (!STAGE_NAMES.includes(stage as StageName)) {
    throw new ReleaseUsageError(`--stage must be one of ${STAGE_NAMES.join(', ')}, not "${stage}"`);
  }
  return { stage: stage as StageName, approveIam, dryRun };
}

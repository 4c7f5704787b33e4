/**
 * The service's settings at synthesis, read from CDK context (cdk.json, or `-c key=value`) with defaults and
 * checked before any construct is made: every stack of video-service.ts is built from them.
 */
import { ENV } from '../../../functions/adapters/runtime/config.js';
import { PROVIDERS, PROVIDER_NAMES, platformBaseUrl, platformsOf } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import type { Environment } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DEFAULT_PREFIX } from '../../../functions/adapters/runtime/resources.js';
import type { ApiThrottle } from './api.js';
import { DEFAULT_API_THROTTLE } from './api.js';
import type { AlarmDestination } from './alarm-destination.js';
import { alarmDestination, ALARMS_CONTEXT } from './alarm-destination.js';
import type { ExternalFfmpegLayer } from './ffmpeg-layer.js';
import { externalFfmpegLayer } from './ffmpeg-layer.js';
import { SetupError } from '../setup-error.js';
import { TABLE_INDEXES_CONTEXT, tableIndexesFromContext } from '../table-indexes.js';
import type { TableIndexes } from '../table-indexes.js';
import { DEFAULT_LAMBDA_CONCURRENCY_QUOTA, MIN_UNRESERVED_CONCURRENCY, TOTAL_RESERVED } from './concurrency.js';
import type { ProviderEndpoint } from './service-functions.js';
import type { VideoStoragePolicy } from './stateful-resources.js';
import { DEFAULT_VIDEO_STORAGE } from './stateful-resources.js';
import { SAM_LOCAL_CONTEXT } from './sam-local.js';
import type { StageName } from './stages.js';
import type { DomainSettings } from './domain-settings.js';
import { DOMAINS_CONTEXT, domainSettings } from './domain-settings.js';
import type { EdgeRateLimits } from './edge-web-acl.js';
import { DEFAULT_EDGE_RATE_LIMITS } from './edge-web-acl.js';
import { stageFromContext } from './stages.js';
import type { SigningKeys } from './video-delivery.js';
import { SIGNING_KEYS_CONTEXT, signingKeysFromContext } from './video-delivery.js';

/** Context keys of the top-up settings, and the variables they set (functions/adapters/runtime/config.ts). */
const TOPUP_CONTEXT = [
  ['alipayAppId', ENV.alipayAppId.name],
  ['alipayPublicKey', ENV.alipayPublicKey.name],
  ['alipayGatewayUrl', ENV.alipayGatewayUrl.name],
  ['topupMinCny', ENV.topupMinCny.name],
  ['topupMaxCny', ENV.topupMaxCny.name],
  ['topupExpiryMinutes', ENV.topupExpiryMinutes.name],
  ['aigcContentPropagator', ENV.aigcContentPropagator.name],
] as const;

export interface VideoServiceConfig {
  /** Prefix of every stack and physical name (`vgs` unless the `prefix` context says otherwise). */
  readonly prefix: string;
  /**
   * Each upstream provider's platform and endpoint (context `<provider>Platform`, `<provider>BaseUrl`,
   * e.g. `arkPlatform=volcengine`); the endpoint defaults to the platform's.
   */
  readonly providerEndpoints: Readonly<Record<ProviderName, ProviderEndpoint>>;
  /** Where ticket alarms and recoveries go (context `ticketsTo`, same forms); unset: where `alarmsTo` says. */
  readonly tickets?: AlarmDestination;
  /** Where the paging alarms go (context `alarmsTo`, alarm-destination.ts); unset: not deployable. */
  readonly alarms?: AlarmDestination;
  /** An operator's ffmpeg layer (context `ffmpegLayerArn`, `ffmpegLayerArchitecture`); unset: the npm build. */
  readonly ffmpegLayer?: ExternalFfmpegLayer;
  readonly apiThrottle?: ApiThrottle;
  /**
   * Reserve concurrency for the workflow, webhook and task-start functions (concurrency.ts); context
   * `reserveConcurrency=false` for an account whose Lambda quota is below what that needs (new accounts).
   */
  readonly reserveConcurrency?: boolean;
  /** Finished videos' tiering and retention (context `videoInfrequentAccessDays`, `videoRetentionDays`). */
  readonly videoStorage?: VideoStoragePolicy;
  /** The account's Lambda concurrency quota in the Region (context `lambdaConcurrencyQuota`). */
  readonly lambdaConcurrencyQuota?: number;
  /** The CloudFront signing keys (context `cloudFrontSigningKeys.<prefix>`); unset: not deployable yet. */
  readonly signingKeys?: SigningKeys;
  /** Each table's indexes while `admin upgrade` stages a change (context `tableIndexes`); unset: every index. */
  readonly tableIndexes?: TableIndexes;
  /** Synthesis for `sam local` (context `samLocal=true`): see sam-local.ts. Never deployed. */
  readonly samLocal?: boolean;
  /**
   * Settings of top-ups (docs/money-and-ledger.md, "Top-ups"), by variable: context `alipayAppId`,
   * `alipayPublicKey`, `alipayGatewayUrl`, `topupMinCny`, `topupMaxCny`, `topupExpiryMinutes`. Unset: the variable's
   * default; the app id and Alipay's key have none, and a top-up function then fails to start naming them.
   */
  readonly topupSettings?: Readonly<Record<string, string>>;
  /** The stable addresses (context `domains`, domain-settings.ts); unset: CloudFront's and execute-api's names. */
  readonly domains?: DomainSettings;
  /** The web ACL's per-IP budgets (context `edgeRateLimits`, edge-web-acl.ts). */
  readonly edgeRateLimits?: EdgeRateLimits;
  /** The stage (stages.ts) whose settings these are; unset: none named. */
  readonly stage?: StageName;
  /** The stage's account and Region; unset: environment-agnostic stacks. Synthesis needs no credentials either way. */
  readonly env?: Environment;
}

/**
 * Config from CDK context, with defaults: `-c prefix=dev`, `-c arkPlatform=volcengine`, `-c arkBaseUrl=...`, `-c alarmsTo=ops@...` (alarm-destination.ts), `-c ffmpegLayerArn=...`,
 * `-c apiThrottleRate=5000 -c apiThrottleBurst=5000`, `-c samLocal=true` (sam-local.ts), `-c tableIndexes=…` (an
 * upgrade's staged deploy, lib/ship/table-indexes.ts), and the signing keys
 * (`cloudFrontSigningKeys`, video-delivery.ts). What a deployment needs on every deploy belongs in cdk.json's
 * context, which CDK reads on every run: a value given only with `-c` is gone on the next plain deploy.
 */
export function configFromContext(scope: Construct): VideoServiceConfig {
  const stage = stageFromContext(scope);
  // A top-level key (cdk.json or `-c`), even empty, wins over the stage's value (stages.ts).
  const lookup = (key: string): unknown => {
    const value: unknown = scope.node.tryGetContext(key);
    return value === undefined ? stage?.settings[key] : value;
  };
  const text = (key: string): string | undefined => {
    const value: unknown = lookup(key);
    if (typeof value === 'number') return String(value);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const positive = (key: string, fallback: number): number => {
    const value = Number(text(key) ?? fallback);
    if (!Number.isInteger(value) || value <= 0) throw new SetupError(`context ${key} must be a positive integer`);
    return value;
  };
  const alarms = alarmDestination(text(ALARMS_CONTEXT), text('alarmEmail'));
  const tickets = alarmDestination(text('ticketsTo'), undefined);
  const ffmpegLayer = externalFfmpegLayer(text('ffmpegLayerArn'), text('ffmpegLayerArchitecture'));
  const rate = positive('apiThrottleRate', DEFAULT_API_THROTTLE.rateLimit);
  const burst = positive('apiThrottleBurst', DEFAULT_API_THROTTLE.burstLimit);
  const prefix = text('prefix') ?? DEFAULT_PREFIX;
  const quota = positive('lambdaConcurrencyQuota', DEFAULT_LAMBDA_CONCURRENCY_QUOTA);
  const reserve = text('reserveConcurrency') ?? String(lookup('reserveConcurrency') ?? 'true');
  if (reserve !== 'true' && reserve !== 'false')
    throw new SetupError('context reserveConcurrency must be true or false');
  if (reserve === 'true' && quota - TOTAL_RESERVED < MIN_UNRESERVED_CONCURRENCY) {
    throw new SetupError(
      `context lambdaConcurrencyQuota ${quota} leaves less than ${MIN_UNRESERVED_CONCURRENCY} unreserved after the ` +
        `${TOTAL_RESERVED} the workflow reserves: ask AWS for a higher quota, or set reserveConcurrency=false (docs/capacity.md)`,
    );
  }
  const staged: unknown = scope.node.tryGetContext(TABLE_INDEXES_CONTEXT);
  const domains = domainSettings(lookup(DOMAINS_CONTEXT));
  const limits = lookup('edgeRateLimits') as Partial<EdgeRateLimits> | undefined;
  const signingKeys = signingKeysFromContext(scope.node.tryGetContext(SIGNING_KEYS_CONTEXT), prefix);
  return {
    prefix,
    providerEndpoints: Object.fromEntries(
      PROVIDER_NAMES.map((name) => {
        const platform = text(`${name}Platform`) ?? PROVIDERS[name].defaultPlatform;
        if (!platformsOf(name).includes(platform)) {
          throw new SetupError(`context ${name}Platform must be one of ${platformsOf(name).join(', ')}`);
        }
        return [name, { platform, baseUrl: text(`${name}BaseUrl`) ?? platformBaseUrl(name, platform) }];
      }),
    ) as Record<ProviderName, ProviderEndpoint>,
    ...(alarms && { alarms }),
    ...(tickets && { tickets }),
    ...(ffmpegLayer && { ffmpegLayer }),
    reserveConcurrency: reserve === 'true',
    videoStorage: videoStorageFromContext(text('videoInfrequentAccessDays'), text('videoRetentionDays')),
    lambdaConcurrencyQuota: quota,
    apiThrottle: { rateLimit: rate, burstLimit: burst },
    ...(signingKeys && { signingKeys }),
    samLocal: String(scope.node.tryGetContext(SAM_LOCAL_CONTEXT)) === 'true',
    topupSettings: Object.fromEntries(
      TOPUP_CONTEXT.flatMap(([key, variable]) => {
        const value = text(key);
        return value === undefined ? [] : [[variable, value]];
      }),
    ),
    ...(staged !== undefined && { tableIndexes: tableIndexesFromContext(staged) }),
    ...(stage && { stage: stage.name, env: stage.env }),
    // `sam local` runs on a laptop: no edge, no custom domain (sam-local.ts).
    ...(domains && String(scope.node.tryGetContext(SAM_LOCAL_CONTEXT)) !== 'true' && { domains }),
    edgeRateLimits: {
      unauthenticated: Number(limits?.unauthenticated ?? DEFAULT_EDGE_RATE_LIMITS.unauthenticated),
      authenticated: Number(limits?.authenticated ?? DEFAULT_EDGE_RATE_LIMITS.authenticated),
    },
  };
}

/**
 * `videoInfrequentAccessDays` (default 30, `none`: stay in Standard; S3 needs at least 30) and
 * `videoRetentionDays` (default `none`: kept; otherwise after the move to Standard-IA, S3 bills IA for 30 days).
 */
export function videoStorageFromContext(ia: string | undefined, retention: string | undefined): VideoStoragePolicy {
  const days = (key: string, value: string | undefined, fallback: number | undefined, min: number) => {
    if (value === undefined) return fallback;
    if (value === 'none') return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new SetupError(`context ${key} must be "none" or a whole number of days, at least ${min}`);
    }
    return n;
  };
  const infrequentAccessAfterDays = days(
    'videoInfrequentAccessDays',
    ia,
    DEFAULT_VIDEO_STORAGE.infrequentAccessAfterDays,
    30,
  );
  const expireAfterDays = days('videoRetentionDays', retention, undefined, 1);
  if (
    infrequentAccessAfterDays !== undefined &&
    expireAfterDays !== undefined &&
    expireAfterDays <= infrequentAccessAfterDays
  ) {
    throw new SetupError(
      'context videoRetentionDays must be more than videoInfrequentAccessDays (or set that to "none")',
    );
  }
  return {
    ...(infrequentAccessAfterDays !== undefined && { infrequentAccessAfterDays }),
    ...(expireAfterDays !== undefined && { expireAfterDays }),
  };
}

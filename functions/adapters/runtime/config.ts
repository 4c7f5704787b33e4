/**
 * Every environment variable the functions read: its name, default and parse, written once here and
 * imported by CDK, the local stack and the tests. Read at cold start: a missing or malformed value fails
 * the function's first load with a message naming it, instead of failing some later request.
 */
import * as v from 'valibot';
import { PROVIDERS, platformsOf } from '../../providers/registry.js';
import type { ProviderName } from '../../providers/registry.js';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS, parseWebhookRetrySchedule } from '../../core/webhook.js';
import { namedError } from '../../core/named-error.js';

export class MissingConfigError extends namedError('MissingConfigError') {}

const text = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'));
const optionalText = v.pipe(v.string(), v.trim());
const integer = (min: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(min));
const flag = v.pipe(
  v.picklist(['true', 'false'], 'must be true or false'),
  v.transform((value) => value === 'true'),
);
const schedule = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return parseWebhookRetrySchedule(dataset.value);
    } catch (error) {
      addIssue({ message: (error as Error).message });
      return NEVER;
    }
  }),
);

interface Variable<S extends v.GenericSchema<string, unknown>> {
  name: string;
  schema: S;
  /** The value when the variable is unset; none: the variable is required. */
  default?: string;
}
function variable<S extends v.GenericSchema<string, unknown>>(name: string, schema: S): Variable<S>;
function variable<S extends v.GenericSchema<string, unknown>>(
  name: string,
  schema: S,
  fallback: string,
): Variable<S> & { default: string };
function variable<S extends v.GenericSchema<string, unknown>>(name: string, schema: S, fallback?: string) {
  return { name, schema, ...(fallback === undefined ? {} : { default: fallback }) };
}

export const MAX_VIDEO_BYTES = 2 * 1024 ** 3;

export const ENV = {
  accountsTable: variable('ACCOUNTS_TABLE', text),
  apiKeysTable: variable('API_KEYS_TABLE', text),
  tasksTable: variable('TASKS_TABLE', text),
  modelsTable: variable('MODELS_TABLE', text),
  /** How long a warm function keeps the model catalog: a model's deprecation or retirement reaches it this late. */
  modelCatalogCacheSeconds: variable('MODEL_CATALOG_CACHE_SECONDS', integer(0), '30'),
  rateLimitsTable: variable('RATE_LIMITS_TABLE', text),
  upstreamAccountsTable: variable('UPSTREAM_ACCOUNTS_TABLE', text),
  upstreamQueueTable: variable('UPSTREAM_QUEUE_TABLE', text),
  ledgerTable: variable('LEDGER_TABLE', text),
  idempotencyTable: variable('IDEMPOTENCY_TABLE', text),
  uploadsTable: variable('UPLOADS_TABLE', text),
  consoleUsersTable: variable('CONSOLE_USERS_TABLE', text),
  redeemCodesTable: variable('REDEEM_CODES_TABLE', text),
  topupsTable: variable('TOPUPS_TABLE', text),
  webhookDeliveriesTable: variable('WEBHOOK_DELIVERIES_TABLE', text),
  /** Alipay (docs/money-and-ledger.md, "Top-ups"): its OpenAPI gateway, our app and the two keys. */
  alipayGatewayUrl: variable('ALIPAY_GATEWAY_URL', text, 'https://openapi.alipay.com/gateway.do'),
  /** Empty: top-ups are not set up on this deployment, and a top-up says so (docs/operations.md, "First deploy"). */
  alipayAppId: variable('ALIPAY_APP_ID', optionalText, ''),
  /** Our app's private key (PEM or bare base64), plain (local) or as a secret (AWS). */
  alipayAppPrivateKey: variable('ALIPAY_APP_PRIVATE_KEY', optionalText, ''),
  alipayAppPrivateKeySecretArn: variable('ALIPAY_APP_PRIVATE_KEY_SECRET_ARN', optionalText, ''),
  /** Alipay's public key (PEM or bare base64): what its answers and notifications are verified with. */
  alipayPublicKey: variable('ALIPAY_PUBLIC_KEY', optionalText, ''),
  /** A top-up's bounds in CNY (at most 2 decimals), and how long an unpaid order stays open. */
  topupMinCny: variable(
    'TOPUP_MIN_CNY',
    v.pipe(text, v.regex(/^\d{1,9}(\.\d{1,2})?$/, 'must be CNY with at most 2 decimals')),
    '1',
  ),
  topupMaxCny: variable(
    'TOPUP_MAX_CNY',
    v.pipe(text, v.regex(/^\d{1,9}(\.\d{1,2})?$/, 'must be CNY with at most 2 decimals')),
    '50000',
  ),
  topupExpiryMinutes: variable('TOPUP_EXPIRY_MINUTES', integer(1), '15'),
  /**
   * The operator's code as the propagator in every delivered video's AI-content label (docs/compliance.md); a
   * deployment sets its own (CDK context `aigcContentPropagator`).
   */
  aigcContentPropagator: variable('AIGC_CONTENT_PROPAGATOR', text, 'operator-code-not-set'),
  /**
   * The API's public base URL, to which the upstream reports a job's status changes (docs/task-lifecycle.md, "Completion").
   * Empty: jobs are made without a callback and only the fallback polling notices their end.
   */
  callbackBaseUrl: variable('CALLBACK_BASE_URL', optionalText, ''),
  /** The fallback poll of a job that reports its end by callback: only a lost callback waits this long. */
  completionCheckSeconds: variable('COMPLETION_CHECK_SECONDS', integer(1), '300'),
  /** The poll of a job that cannot report (no CALLBACK_BASE_URL). */
  completionPollSeconds: variable('COMPLETION_POLL_SECONDS', integer(1), '60'),
  videoBucket: variable('VIDEO_BUCKET', text),
  stateMachineArn: variable('STATE_MACHINE_ARN', text),
  webhookQueueUrl: variable('WEBHOOK_QUEUE_URL', text),
  region: variable('AWS_REGION', text),
  defaultRateLimitPerSecond: variable('DEFAULT_RATE_LIMIT_PER_SECOND', integer(1), '10'),
  maxVideoBytes: variable('MAX_VIDEO_BYTES', integer(1), String(MAX_VIDEO_BYTES)),
  videoDownloadTimeoutMs: variable('VIDEO_DOWNLOAD_TIMEOUT_MS', integer(1), String(10 * 60 * 1000)),
  reconcileMinAgeSeconds: variable('RECONCILE_MIN_AGE_SECONDS', integer(1), '120'),
  /** How long a webhook may be overdue before the requeuer sends it again: longer than one try can take (30 s). */
  webhookRequeueAfterSeconds: variable('WEBHOOK_REQUEUE_AFTER_SECONDS', integer(1), '300'),
  webhookRetryScheduleSeconds: variable(
    'WEBHOOK_RETRY_SCHEDULE_SECONDS',
    schedule,
    DEFAULT_WEBHOOK_RETRY_SCHEDULE_SECONDS.join(','),
  ),
  /** Only the local runtime sets it: in AWS every non-public range is refused (docs/security.md, "URL policy"). */
  allowLoopbackTargets: variable('ALLOW_LOOPBACK_TARGETS', flag, 'false'),
  s3ForcePathStyle: variable('S3_FORCE_PATH_STYLE', flag, 'false'),
  /** The SDK's own endpoint settings (the local emulator), read where a URL is built without the SDK. */
  s3Endpoint: variable('AWS_ENDPOINT_URL_S3', optionalText, ''),
  awsEndpoint: variable('AWS_ENDPOINT_URL', optionalText, ''),
  /** Set in AWS: video URLs are CloudFront-signed (they outlive role credentials); unset: S3-presigned. */
  cloudFrontDomain: variable('CLOUDFRONT_DOMAIN', optionalText, ''),
  cloudFrontKeyPairId: variable('CLOUDFRONT_KEY_PAIR_ID', text),
  cloudFrontPrivateKeySecretArn: variable('CLOUDFRONT_PRIVATE_KEY_SECRET_ARN', text),
  /**
   * Days the video bucket's lifecycle rule keeps a finished video (CDK context `videoRetentionDays`); empty: kept.
   * A task whose video it removed answers no URL but when it was removed (functions/core/video-retention.ts).
   */
  videoRetentionDays: variable('VIDEO_RETENTION_DAYS', v.union([v.literal(''), integer(1)]), ''),
  /** The ffmpeg binary TranscodeUpload runs: the layer's in AWS (/opt), the npm package's locally. */
  ffmpegPath: variable('FFMPEG_PATH', text, '/opt/ffmpeg'),
  /** The function PrepareInputs invokes to transcode an upload (UPLOAD_TRANSCODER in resources.ts). */
  transcoderFunction: variable('TRANSCODER_FUNCTION', text),
  /** The SDK's Lambda endpoint setting (the local stack's invoke server), read where a call is signed by hand. */
  lambdaEndpoint: variable('AWS_ENDPOINT_URL_LAMBDA', optionalText, ''),
} as const;

/**
 * A provider's variables (functions/providers/registry.ts): its platform, its endpoint (default: the
 * platform's) and its key, plain (local) or as a secret (AWS).
 */
export function providerEnv(provider: ProviderName) {
  const { envPrefix: prefix, defaultPlatform } = PROVIDERS[provider];
  const platforms = platformsOf(provider);
  return {
    platform: variable(
      `${prefix}_PLATFORM`,
      v.picklist(platforms, `must be one of ${platforms.join(', ')}`),
      defaultPlatform,
    ),
    baseUrl: variable(`${prefix}_BASE_URL`, optionalText, ''),
    apiKey: variable(`${prefix}_API_KEY`, text),
    apiKeySecretArn: variable(`${prefix}_API_KEY_SECRET_ARN`, optionalText, ''),
  };
}

type Env = typeof ENV;

/** The variable's value, parsed; its default when unset. */
export function readEnv<K extends keyof Env>(key: K): v.InferOutput<Env[K]['schema']> {
  return readVariable(ENV[key] as Variable<v.GenericSchema<string, unknown>>) as v.InferOutput<Env[K]['schema']>;
}

export function readVariable<S extends v.GenericSchema<string, unknown>>(spec: Variable<S>): v.InferOutput<S> {
  const raw = process.env[spec.name];
  const value = raw === undefined || raw.trim() === '' ? spec.default : raw;
  if (value === undefined) throw new MissingConfigError(`environment variable ${spec.name} is required`);
  const parsed = v.safeParse(spec.schema, value);
  if (!parsed.success) {
    throw new MissingConfigError(`environment variable ${spec.name}: ${parsed.issues[0].message} (got "${value}")`);
  }
  return parsed.output;
}

export { variable as envVariable };
export type { Variable as EnvVariable };

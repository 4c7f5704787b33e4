/**
 * Everything that holds data: the DynamoDB tables, the video bucket (and the bucket its access logs go
 * to), the webhook queues and the secrets. Names come from functions/adapters/runtime/resources.ts, the same table
 * the local stack creates its emulated resources from. Losing any of these loses customer data or money,
 * so each is retained when its stack is deleted and tables are also protected against deletion.
 */
import { PROVIDERS, PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import { allReleaseIndexes } from '../table-indexes.js';
import type { IndexSpec, TableIndexes } from '../table-indexes.js';
import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Bucket, ObjectOwnership, StorageClass } from 'aws-cdk-lib/aws-s3';
import type { LifecycleRule } from 'aws-cdk-lib/aws-s3';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { TableId } from '../../../functions/adapters/runtime/resources.js';
import { physicalNames, TABLES, UPLOADS, WEBHOOK_QUEUE } from '../../../functions/adapters/runtime/resources.js';
import { PRIVATE_BUCKET } from './private-bucket.js';

/**
 * The video bucket's name: `<prefix>-videos` is its logical name, and bucket names are global, so the
 * account and region make it unique. The stateless stack refers to the bucket by this name.
 */
export function videoBucketName(prefix: string): string {
  return `${physicalNames(prefix).videoBucket}-${Aws.ACCOUNT_ID}-${Aws.REGION}`;
}

/** Where finished videos live (functions/core/use-cases/upstream-completion.ts: `videos/<account>/<task>.mp4`). */
export const VIDEOS_PREFIX = 'videos/';

/**
 * What happens to finished videos with age (context `videoInfrequentAccessDays`, `videoRetentionDays`):
 * by default they are kept and move to S3 Standard-IA after 30 days (S3's minimum for that transition).
 */
export interface VideoStoragePolicy {
  /** Days until Standard-IA; undefined: stay in Standard. */
  readonly infrequentAccessAfterDays?: number;
  /** Days until deleted; undefined: kept. */
  readonly expireAfterDays?: number;
}
export const DEFAULT_VIDEO_STORAGE: VideoStoragePolicy = { infrequentAccessAfterDays: 30 };

/**
 * The tables every API call or task step touches: the key and rate-limit checks of each request, the tasks, the
 * balances. CloudWatch Contributor Insights on them names the hot keys when `<Table>TableThrottled` fires
 * (docs/runbook.md); the others are read rarely, and its rules are billed per table.
 */
export const HOT_TABLES: readonly TableId[] = ['apiKeys', 'rateLimits', 'tasks', 'accounts'];

export interface StatefulResourcesProps {
  /** Deployment prefix: every physical name is `<prefix>-<logical name>`. */
  readonly prefix: string;
  /** @default DEFAULT_VIDEO_STORAGE */
  readonly videoStorage?: VideoStoragePolicy;
  /** Each table's indexes, when an upgrade stages them (context `tableIndexes`); @default every index */
  readonly tableIndexes?: TableIndexes;
}

export class StatefulResources extends Construct {
  readonly tables: Readonly<Record<TableId, Table>>;
  readonly videoBucket: Bucket;
  /** S3 server access logs of the video bucket and CloudFront standard logs. */
  readonly accessLogsBucket: Bucket;
  readonly webhookQueue: Queue;
  readonly webhookDeadLetterQueue: Queue;
  /** The tasks stream's event source reports here the batches of new tasks it could not start (TASK_STARTS). */
  readonly taskStartsDeadLetterQueue: Queue;
  /** Each upstream provider's API key (functions/providers/registry.ts). The signing keys are VideoDelivery's. */
  readonly providerApiKeys: Readonly<Record<ProviderName, Secret>>;
  /** Our Alipay app's private key (docs/money-and-ledger.md, "Top-ups"). */
  readonly alipayAppPrivateKey: Secret;
  /** The customer-managed key every secret of the service is encrypted with (docs/security.md, "Secrets"). */
  readonly secretsKey: Key;

  constructor(scope: Construct, id: string, props: StatefulResourcesProps) {
    super(scope, id);
    const names = physicalNames(props.prefix);

    const tables = {} as Record<TableId, Table>;
    for (const [tableId, definition] of Object.entries(TABLES) as [TableId, (typeof TABLES)[TableId]][]) {
      tables[tableId] = new Table(this, `${pascal(tableId)}Table`, {
        tableName: names.tables[tableId],
        partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
        ...('sortKey' in definition && { sortKey: { name: definition.sortKey, type: AttributeType.STRING } }),
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        deletionProtection: true,
        removalPolicy: RemovalPolicy.RETAIN,
        ...(HOT_TABLES.includes(tableId) && { contributorInsightsSpecification: { enabled: true } }),
        ...('ttlAttribute' in definition && { timeToLiveAttribute: definition.ttlAttribute }),
        // The tasks table's stream starts each new task's execution (TASK_STARTS).
        ...('stream' in definition && { stream: StreamViewType[definition.stream] }),
      });
      // A staged upgrade's deploy may keep indexes this release dropped or reshaped (lib/ship/table-indexes.ts).
      for (const index of (props.tableIndexes ?? allReleaseIndexes())[tableId]) {
        tables[tableId].addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          sortKey: { name: index.sortKey, type: AttributeType.STRING },
          ...projection(index),
        });
      }
    }
    this.tables = tables;

    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      ...PRIVATE_BUCKET,
      // CloudFront standard logging writes with ACLs: the bucket must accept them (and owns what it gets).
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ id: 'expire-logs', expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.videoBucket = new Bucket(this, 'VideoBucket', {
      bucketName: videoBucketName(props.prefix),
      ...PRIVATE_BUCKET,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Versioning stays off: each video is written once under its own task's key and never overwritten,
      // so there is no history to protect, and versions would keep paying for every deleted video.
      versioned: false,
      lifecycleRules: [
        // TransferVideo uploads in parts; a crashed upload must not leave billed parts behind.
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Customer uploads and their H.264 copies (docs/api-contract.md, "Uploads"): 48 h, which S3 can only say in whole days (it
        // also rounds to the next midnight UTC), so up to a day more; the service refuses them after 48 h itself.
        { id: 'expire-uploads', prefix: UPLOADS.prefix, expiration: Duration.days(UPLOADS.expireAfterDays) },
        ...videoLifecycle(props.videoStorage ?? DEFAULT_VIDEO_STORAGE),
      ],
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 's3/videos/',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Queue settings come from WEBHOOK_QUEUE (functions/adapters/runtime/resources.ts), shared with the local stack.
    this.webhookDeadLetterQueue = new Queue(this, 'WebhookDeadLetterQueue', {
      queueName: names.webhookDeadLetterQueue,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Created ahead of its consumer (WEBHOOK_QUEUE.consumer, not deployed yet): the state machine already
    // sends to it. The visibility timeout is at least six times the consumer's timeout (AWS's advice for an
    // SQS event source), so a message is never handed out again while a delivery is still running.
    if (WEBHOOK_QUEUE.visibilityTimeoutSeconds < 6 * WEBHOOK_QUEUE.consumer.timeoutSeconds) {
      throw new Error('WEBHOOK_QUEUE.visibilityTimeoutSeconds must be at least 6 × the consumer timeout');
    }
    this.webhookQueue = new Queue(this, 'WebhookQueue', {
      queueName: names.webhookQueue,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(WEBHOOK_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(WEBHOOK_QUEUE.retentionSeconds),
      deadLetterQueue: { queue: this.webhookDeadLetterQueue, maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount },
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.taskStartsDeadLetterQueue = new Queue(this, 'TaskStartsDeadLetterQueue', {
      queueName: names.taskStartsDeadLetterQueue,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.taskStartsDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "It is a dead-letter queue: the tasks stream event source's on-failure destination (cdk-nag only recognises " +
        'redrive targets). Nothing reads it but an operator; a queue behind it would hold nothing.',
    });

    // Secrets are created with a random placeholder value; the operator stores the real one after the first
    // deploy (see the description). Only their ARNs ever reach a function's environment. No fixed names:
    // a deleted secret's name stays taken for its 7-30 day recovery window, and a retained one's for good,
    // so a redeploy of the prefix could not create it again; CloudFormation generates a unique name instead.
    // One customer-managed key for the secrets, rotated yearly by KMS: its use is in CloudTrail, and its key
    // policy (the account's, as CDK writes it) plus each secret's own policy (secret-readers.ts) decide who reads.
    this.secretsKey = new Key(this, 'SecretsKey', {
      alias: `${props.prefix}/secrets`,
      description: `${props.prefix}: encrypts the service's secrets (upstream keys, Alipay and CloudFront private keys)`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.providerApiKeys = Object.fromEntries(
      PROVIDER_NAMES.map((provider) => {
        const key = new Secret(this, `${pascal(provider)}ApiKey`, {
          description: `${props.prefix}: API key of the upstream ${PROVIDERS[provider].label}. Set it: aws secretsmanager put-secret-value.`,
          encryptionKey: this.secretsKey,
          removalPolicy: RemovalPolicy.RETAIN,
        });
        Validations.of(key).acknowledge({
          id: 'AwsSolutions-SMG4',
          reason:
            'The key is issued by the upstream provider; it can only be rotated in their console, then stored here by hand.',
        });
        return [provider, key];
      }),
    ) as Record<ProviderName, Secret>;
    this.alipayAppPrivateKey = new Secret(this, 'AlipayAppPrivateKey', {
      description: `${props.prefix}: our Alipay app's private key (PEM or bare base64). Set it: aws secretsmanager put-secret-value.`,
      encryptionKey: this.secretsKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.alipayAppPrivateKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "The key pair is made with Alipay's key tool and its public half uploaded to Alipay: rotated there, stored here by hand.",
    });
  }
}

function projection(index: IndexSpec) {
  if (index.nonKeyAttributes === undefined) return { projectionType: ProjectionType.ALL };
  if (index.nonKeyAttributes.length === 0) return { projectionType: ProjectionType.KEYS_ONLY };
  return { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.nonKeyAttributes] };
}

/** `tasks` → `Tasks`, `model-studio` → `ModelStudio`: a construct id from a name. */
export function pascal(id: string): string {
  return id.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}

/** The finished videos' lifecycle rule, or none when the policy keeps them in Standard forever. */
function videoLifecycle({ infrequentAccessAfterDays, expireAfterDays }: VideoStoragePolicy): LifecycleRule[] {
  if (infrequentAccessAfterDays === undefined && expireAfterDays === undefined) return [];
  return [
    {
      id: 'videos-storage-policy',
      prefix: VIDEOS_PREFIX,
      ...(infrequentAccessAfterDays !== undefined && {
        transitions: [
          { storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(infrequentAccessAfterDays) },
        ],
      }),
      ...(expireAfterDays !== undefined && { expiration: Duration.days(expireAfterDays) }),
    },
  ];
}

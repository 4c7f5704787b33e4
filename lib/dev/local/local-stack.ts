/**
 * The whole service on one machine, in three processes as in AWS: this one holds the emulators and each
 * provider's simulated upstream (none for a provider given its real one, lib/dev/local/upstreams.ts); one child
 * the local API Gateway and the API handlers (api-process.ts); another the local Step Functions with the
 * workflow steps, event sources and scheduled functions (workflow-process.ts). The children run the
 * bundles CDK deploys and find everything through the same environment variables. The console's sign-in is
 * a fourth, cognito-local (lib/dev/local/cognito.ts), whose tokens the local gateway checks.
 */
import { ENV } from '../../../functions/adapters/runtime/config.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdminStore } from '../../ship/admin/admin-store.js';
import { ensureConsoleUser } from '../../ship/admin/console-invite.js';
import { linkConsoleUser } from '../../../functions/adapters/dynamodb/console-users.js';
import { physicalNames } from '../../../functions/adapters/runtime/resources.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';
import { CONSOLE_ROUTE_SCOPES } from '../../ship/routes.js';
import type { GatewaySettings } from './api-gateway-server.js';
import { startApiProcess } from './api-process-client.js';
import type { ApiProcess } from './api-process-client.js';
import { startLocalCognito } from './cognito.js';
import type { LocalCognito } from './cognito.js';
import { createBucket, createTables, startDynamoDbLocal, startS3AndSqs } from './emulators.js';
import { freePort } from './free-port.js';
import { startUploadSweeper } from './upload-sweeper.js';
import { lambdaBundles, markUsed } from '../../ship/build/lambda-bundles.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';
import { createWebhookQueues } from './local-queues.js';
import type { WebhookQueues } from './local-queues.js';
import { localStateMachineArn } from './local-workflow.js';
import type { SimulatedJob } from '../simulators/simulator.js';
import { startPayments } from './payments.js';
import type { LocalPayments, PaymentChoice } from './payments.js';
import { runtimeUpstreams, startUpstreams, upstreamEndpoints } from './upstreams.js';
import type {
  LocalUpstream,
  LocalUpstreamAccount,
  RuntimeUpstream,
  SimulatorTiming,
  UpstreamChoice,
} from './upstreams.js';
import { startWorkflowProcess } from './workflow-process-client.js';
import type { WorkflowProcess } from './workflow-process-client.js';

export interface LocalStackOptions {
  /** API port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Where data persists (DynamoDB tables, S3 objects); undefined keeps everything in memory. */
  dataDir?: string;
  /** Name prefix of tables and bucket. */
  prefix?: string;
  /**
   * Seconds between polls when jobs are made without a callback URL (`callbacks: false`;
   * COMPLETION_POLL_SECONDS). Default 1. A job made with one that never calls back (`[simulate:no-callback]`)
   * is polled every LOCAL_COMPLETION_CHECK_SECONDS (30 s) instead.
   */
  pollIntervalSeconds?: number;
  /** Whether jobs are made with a callback URL (the local API): default true when every upstream is simulated. */
  callbacks?: boolean;
  /** The simulators' timing, and their limits (Ark's 120 queued per master account by default). */
  upstream?: SimulatorTiming;
  /** Each provider's upstream accounts (docs/upstream-capacity.md). Default: `default` with capacity 120. */
  upstreamAccounts?: readonly LocalUpstreamAccount[];
  /**
   * Each provider's upstream; unnamed: its simulator on the default platform. Never read from the
   * environment here: only `npm start` does (lib/dev/local/upstreams.ts).
   */
  upstreams?: Partial<Record<ProviderName, UpstreamChoice>>;
  /** Alipay: its simulator (default), or the gateway and keys given (only `npm start` reads them: bin/local.ts). */
  payments?: PaymentChoice;
  /** The simulator's waits before resending a notification not answered `success` (default: Alipay's). */
  paymentNotifyRetryMs?: readonly number[];
  /** Extra environment for the handlers (e.g. DEFAULT_RATE_LIMIT_PER_SECOND). */
  environment?: Record<string, string>;
  /** Plaintext of the demo account's key; when absent a random one is made (or reused from dataDir). */
  demoApiKey?: string;
  demoBalanceYuan?: string;
  /**
   * Password of the demo account's console user (DEMO_CONSOLE_EMAIL), set again on every start; when absent
   * a random one is made.
   */
  demoConsolePassword?: string;
  /** One line per API request, when given. */
  accessLog?: (line: string) => void;
  /** Lines about long work while starting (building the Lambda bundles), for a person watching. */
  progress?: (line: string) => void;
  /** How often the reconciler looks for stuck tasks. Default 30 s. */
  reconcileIntervalMs?: number;
}

/** The console user of the demo account (the demo login `npm start` prints). */
export const DEMO_CONSOLE_EMAIL = 'demo@example.com';

export interface LocalStack {
  baseUrl: string;
  /** The demo account, its key and its console login (an email and password of the local Cognito). */
  demo: { accountId: string; apiKey: string; console: { email: string; password: string } };
  /** The console: its URL, and the local Cognito its users sign in with (sign-ups confirm with its fixed code). */
  console: { url: string; cognito: Omit<LocalCognito, 'stop' | 'client' | 'directory'> };
  endpoints: {
    dynamodb: string;
    s3: string;
    sqs: string;
    sfn: string;
    upstreams: Record<ProviderName, RuntimeUpstream>;
  };
  names: ReturnType<typeof physicalNames>;
  admin: AdminStore;
  db: DynamoDBDocumentClient;
  /** The API side (local API Gateway, API handlers): a child process. */
  api: Pick<ApiProcess, 'pid'>;
  /** The workflow side (local Step Functions, workflow handlers, reconciler, webhook consumer): a child process. */
  workflow: WorkflowProcess;
  /** Each provider's upstream, with its simulator when simulated. */
  upstreams: Record<ProviderName, LocalUpstream>;
  /** Alipay: where the handlers reach it, and its simulator when simulated. */
  payments: Omit<LocalPayments, 'close'>;
  /** What the simulators hold, every provider's together (nothing for a real upstream). */
  upstream: { jobs(): SimulatedJob[] };
  /** The webhook queue (consumed by the workflow process, as Lambda's event source would) and its dead-letter queue. */
  webhookQueues: WebhookQueues;
  /**
   * Resolves (with what happened) if a child process (API, workflow) exits while the stack runs: the stack no
   * longer works as a whole, and whoever runs it should stop it and say so.
   */
  broken: Promise<string>;
  stop(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch((error) => console.error('stop failed:', error));
    stoppers.length = 0;
  };
  // Built (or found in the cache) while the emulators start; awaited before the first child needs it.
  const bundling = lambdaBundles(undefined, undefined, options.progress);
  bundling.catch(() => undefined);
  // Started beside DynamoDB Local (it is ready in about a second); stopped last.
  const cognitoStarting = startLocalCognito({ dataDir: options.dataDir && join(options.dataDir, 'cognito') });
  cognitoStarting.catch(() => undefined);
  stoppers.push(async () => (await cognitoStarting.catch(() => undefined))?.stop());
  try {
    const dynamo = await startDynamoDbLocal(options.dataDir && join(options.dataDir, 'dynamodb'));
    stoppers.push(dynamo.stop);
    const fauxqs = await startPersistentS3(options.dataDir);
    stoppers.push(fauxqs.stop);
    const upstreams = await startUpstreams({
      choices: options.upstreams,
      timing: options.upstream,
      accounts: options.upstreamAccounts,
      dataDir: options.dataDir,
    });
    stoppers.push(() => upstreams.close());
    const { byProvider } = upstreams;
    const payments = await startPayments(options.payments, options.paymentNotifyRetryMs);
    stoppers.push(() => payments.close());

    const names = physicalNames(options.prefix ?? 'vgs-local');
    const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    const dynamoClient = new DynamoDBClient({ ...clientConfig, endpoint: dynamo.endpoint });
    const s3 = new S3Client({ ...clientConfig, endpoint: fauxqs.endpoint, forcePathStyle: true });
    const sqs = new SQSClient({ ...clientConfig, endpoint: fauxqs.endpoint });
    stoppers.push(async () => [dynamoClient, s3, sqs].forEach((client) => client.destroy()));
    await createTables(dynamoClient, names.tables);
    await createBucket(s3, names.videoBucket);
    const webhookQueues = await createWebhookQueues(sqs, fauxqs.endpoint, names);

    const bundles = await bundling;
    if (bundles.built) console.log(`Built the Lambda bundles as CDK does in ${(bundles.ms / 1000).toFixed(1)} s.`);
    // A running stack keeps its build from being pruned (by another run's build) while it may still load from it.
    const keepBundles = setInterval(() => markUsed(bundles.dir), 600_000).unref();
    stoppers.push(async () => clearInterval(keepBundles));

    const stateMachineArn = localStateMachineArn(names);
    // Known before the API starts: the workflow's StartUpstream puts it in each job's callback URL.
    const port = options.port === 0 ? await freePort() : (options.port ?? 3000);
    const simulatedOnly = Object.values(byProvider).every((upstream) => upstream.simulator !== undefined);
    const callbacks = options.callbacks ?? simulatedOnly;
    const workflow = await startWorkflowProcess({
      callbackBaseUrl: callbacks ? `http://127.0.0.1:${port}` : '',
      names,
      endpoints: {
        dynamodb: dynamo.endpoint,
        s3AndSqs: fauxqs.endpoint,
        upstreams: upstreamEndpoints(byProvider),
        payments: payments.endpoint,
      },
      webhookQueue: { url: webhookQueues.queue.url, arn: webhookQueues.queue.arn },
      pollIntervalSeconds: options.pollIntervalSeconds ?? 1,
      reconcileIntervalMs: options.reconcileIntervalMs ?? 30_000,
      environment: options.environment ?? {},
      bundles: bundles.files,
    });
    stoppers.push(() => workflow.stop());

    const db = DynamoDBDocumentClient.from(dynamoClient, { marshallOptions: { removeUndefinedValues: true } });
    // The uploads' 48 h, as the bucket's lifecycle rule keeps it in AWS.
    const sweeper = startUploadSweeper({ s3, bucket: names.videoBucket, db, uploadsTable: names.tables.uploads });
    stoppers.push(() => sweeper.stop());
    const admin = new AdminStore(db, names.tables);
    await admin.seedModels(readJson('lib/ship/seed/model-catalog.json'));
    for (const upstream of Object.values(byProvider)) {
      for (const account of upstream.accounts) {
        await admin.setUpstreamAccount(upstream.provider, account.name, {
          capacity: account.capacity,
          ...(account.keys && { keys: account.keys }),
          ...(account.inflightCeiling && { inflightCeiling: account.inflightCeiling }),
        });
      }
    }
    const demo = await ensureDemoAccount(admin, options);
    const cognito = await cognitoStarting;
    const demoConsole = { email: DEMO_CONSOLE_EMAIL, password: options.demoConsolePassword ?? randomPassword() };
    const { sub } = await ensureConsoleUser(
      { client: cognito.client, userPoolId: cognito.userPoolId },
      demoConsole.email,
      demoConsole.password,
    );
    await linkConsoleUser(db, names.tables.consoleUsers, {
      sub,
      account_id: demo.accountId,
      email: demoConsole.email,
      created_at: new Date().toISOString(),
    });
    // The API process's gateway: its JWT authorizer (lib/dev/local/jwt-authorizer.ts) and the console's config
    // (lib/dev/local/console-files.ts).
    const gatewaySettings: GatewaySettings = {
      jwtAuthorizer: { issuer: cognito.issuer, audience: [cognito.clientId], scopes: CONSOLE_ROUTE_SCOPES },
      console: {
        config: {
          cognito: {
            endpoint: cognito.endpoint,
            region: cognito.region,
            userPoolId: cognito.userPoolId,
            clientId: cognito.clientId,
          },
          apiBase: '',
          payments: payments.simulator ? 'simulator' : 'alipay',
        },
      },
    };

    const api = await startApiProcess(
      {
        names,
        endpoints: {
          dynamodb: dynamo.endpoint,
          s3AndSqs: fauxqs.endpoint,
          sfn: workflow.sfnEndpoint,
          upstreams: upstreamEndpoints(byProvider),
          payments: payments.endpoint,
          stateMachineArn,
          webhookQueueUrl: webhookQueues.queue.url,
        },
        // Alipay's notifications come to this API (the top-ups' notify_url).
        environment: { [ENV.callbackBaseUrl.name]: `http://127.0.0.1:${port}`, ...options.environment },
        gateway: gatewaySettings,
        bundles: bundles.files,
        port,
      },
      options.accessLog,
    );
    stoppers.push(() => api.stop());

    return {
      baseUrl: api.url,
      api: { pid: api.pid },
      demo: { ...demo, console: demoConsole },
      console: {
        url: `${api.url}/console/`,
        cognito: {
          endpoint: cognito.endpoint,
          region: cognito.region,
          userPoolId: cognito.userPoolId,
          clientId: cognito.clientId,
          issuer: cognito.issuer,
          confirmationCode: cognito.confirmationCode,
          pid: cognito.pid,
        },
      },
      endpoints: {
        dynamodb: dynamo.endpoint,
        s3: fauxqs.endpoint,
        sqs: fauxqs.endpoint,
        sfn: workflow.sfnEndpoint,
        upstreams: runtimeUpstreams(byProvider),
      },
      names,
      admin,
      db,
      workflow,
      upstreams: byProvider,
      payments: { endpoint: payments.endpoint, ...(payments.simulator && { simulator: payments.simulator }) },
      upstream: { jobs: () => Object.values(byProvider).flatMap((upstream) => upstream.simulator?.jobs() ?? []) },
      webhookQueues,
      broken: Promise.race([api.unexpectedExit, workflow.unexpectedExit]),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Where a data directory keeps its S3 emulator's port. */
const S3_PORT_FILE = 's3-port';

/**
 * The S3 emulator, persistent under `dataDir` on the port it had there before: the video URLs given out
 * (stored on tasks, sent in webhooks) name it, and must work after a restart. A first start picks a free
 * port and keeps it.
 */
async function startPersistentS3(dataDir: string | undefined) {
  if (!dataDir) return startS3AndSqs(undefined);
  const portFile = join(dataDir, S3_PORT_FILE);
  const kept = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8').trim()) : 0;
  const keptPort = Number.isInteger(kept) && kept > 0 && kept < 65_536 ? kept : undefined;
  const fauxqs = await startS3AndSqs(join(dataDir, 's3'), keptPort ?? (await freePort())).catch((error: Error) => {
    if (keptPort === undefined || !/EADDRINUSE/.test(error.message)) throw error;
    throw new Error(
      `The local S3's port ${keptPort} (kept in ${portFile}: the video URLs given out name it) is taken. Stop ` +
        'what holds it, or delete that file to take another port (earlier video URLs then stop working).',
    );
  });
  if (fauxqs.port !== keptPort) writeFileSync(portFile, `${fauxqs.port}\n`);
  return fauxqs;
}

async function ensureDemoAccount(admin: AdminStore, options: LocalStackOptions) {
  const accountId = 'demo';
  if (!(await admin.accountExists(accountId))) await admin.createAccount(accountId, options.demoBalanceYuan ?? '100');
  if (options.demoApiKey) {
    await admin.createKey({ accountId, plaintext: options.demoApiKey }).catch((error: Error) => {
      if (error.message !== 'this key already exists') throw error;
    });
    return { accountId, apiKey: options.demoApiKey };
  }
  const { key } = await admin.createKey({ accountId });
  return { accountId, apiKey: key };
}

/** A password meeting the pool's policy (upper and lower case, digits; 8+). */
function randomPassword(): string {
  return `Demo-${randomBytes(9).toString('base64url')}7a`;
}

function readJson<T = { version: number; models: unknown[] }>(path: string): T {
  return JSON.parse(readFileSync(join(REPOSITORY_ROOT, path), 'utf8')) as T;
}

/**
 * The local stand-in for Amazon Cognito user pools: cognito-local (npm) in a child process, with the console's
 * user pool and app client made once and kept. The same SDK calls as in AWS, against its endpoint; its tokens
 * are RS256 JWTs with the issuer `http://127.0.0.1:<port>/<pool id>` and the JWKS under it, which the local
 * gateway checks as API Gateway's JWT authorizer does (lib/dev/local/jwt-authorizer.ts).
 *
 * It keeps its data in `<cwd>/.cognito`, so it runs in `dataDir`; the port, pool and client ids are kept
 * there too (POOL_FILE): tokens name the port in their issuer, and stay valid across restarts only on it.
 * Without a data dir it runs in a temporary directory, removed when it stops.
 *
 * cognito-local does not exit with its parent, so it is spawned with an IPC channel and a preloaded line that
 * exits when the channel closes: a parent killed with -9 takes it along, as the forked children go
 * (lib/dev/local/forked-process.ts). It stays in the parent's process group, so a signal to the group reaches it
 * too; stop() ends it with SIGTERM (SIGKILL after 5 s).
 */
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';
import { freePort } from './free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';

/** The confirmation code of every local sign-up (cognito-local's CODE), printed by `npm start`. */
export const LOCAL_CONFIRMATION_CODE = '123456';

/** Where a data directory keeps the port and the ids (a JSON file beside cognito-local's `.cognito`). */
export const POOL_FILE = 'local-pool.json';

const START_SCRIPT = join(REPOSITORY_ROOT, 'node_modules', 'cognito-local', 'lib', 'bin', 'start.js');
/** Preloaded into cognito-local: exits when the parent's IPC channel closes (the parent exited, however). */
const EXIT_WITH_PARENT = 'data:text/javascript,process.on("disconnect",()=>process.exit(0))';

export interface LocalCognito {
  /** cognito-local's endpoint, with the trailing slash the SPA's config names. */
  endpoint: string;
  region: string;
  userPoolId: string;
  clientId: string;
  /** The `iss` of its tokens; the JWKS is at `${issuer}/.well-known/jwks.json`. */
  issuer: string;
  /** The fixed confirmation code of sign-ups (and forgotten passwords). */
  confirmationCode: string;
  pid: number;
  /** Where it keeps its data: the data dir given, or its temporary directory (removed by stop()). */
  directory: string;
  /** A client of this pool's endpoint (destroyed by stop()). */
  client: CognitoIdentityProviderClient;
  stop(): Promise<void>;
}

export interface LocalCognitoOptions {
  /** Where it persists; undefined: a temporary directory, removed by stop(). */
  dataDir?: string;
  /** Default LOCAL_CONFIRMATION_CODE. */
  confirmationCode?: string;
  /** Names of the pool and client made on a first start. */
  poolName?: string;
  timeoutMs?: number;
}

interface KeptPool {
  port: number;
  userPoolId: string;
  clientId: string;
}

export async function startLocalCognito(options: LocalCognitoOptions = {}): Promise<LocalCognito> {
  const persistent = options.dataDir !== undefined;
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cognito-local-'));
  mkdirSync(dir, { recursive: true });
  const poolFile = join(dir, POOL_FILE);
  const kept = readKept(poolFile);
  const port = kept?.port ?? (await freePort());
  const confirmationCode = options.confirmationCode ?? LOCAL_CONFIRMATION_CODE;
  const child = spawn(process.execPath, ['--import', EXIT_WITH_PARENT, START_SCRIPT], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CODE: confirmationCode,
      // Its AWS SDK v2 (for Lambda triggers, unused here) otherwise warns on every start.
      AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}/`;
  const client = new CognitoIdentityProviderClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const stop = async () => {
    client.destroy();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    if (!persistent) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(endpoint, () => child.exitCode !== null || child.signalCode !== null, options.timeoutMs);
  } catch (error) {
    await stop();
    const inUse = /EADDRINUSE/.test(output);
    throw new Error(
      inUse && kept
        ? `The local Cognito's port ${port} (kept in ${poolFile}: its tokens name it) is taken. Stop what holds ` +
            'it, or delete that file to take another port (signed-in sessions then end).'
        : `cognito-local did not start (${(error as Error).message}):\n${output}`,
      { cause: error },
    );
  }
  try {
    const ids = await ensurePool(client, kept, options.poolName ?? 'console');
    if (!kept || kept.userPoolId !== ids.userPoolId || kept.clientId !== ids.clientId) {
      writeFileSync(poolFile, `${JSON.stringify({ port, ...ids }, null, 2)}\n`);
    }
    return {
      endpoint,
      region: LOCAL_REGION,
      ...ids,
      issuer: `http://127.0.0.1:${port}/${ids.userPoolId}`,
      confirmationCode,
      pid: child.pid!,
      directory: dir,
      client,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function readKept(file: string): KeptPool | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Partial<KeptPool>;
    const valid =
      Number.isInteger(kept.port) &&
      kept.port! > 0 &&
      kept.port! < 65_536 &&
      typeof kept.userPoolId === 'string' &&
      typeof kept.clientId === 'string';
    return valid ? (kept as KeptPool) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Generous, for a machine other work shares: cognito-local logged "running" and then missed 30 s of 1-s probes
 * beside a test starting hundreds of tasks (its first answers load much of the AWS SDK v2).
 */
async function waitForHealth(endpoint: string, hasExited: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (hasExited()) throw new Error('it exited');
    try {
      const response = await fetch(`${endpoint}health`, { signal: AbortSignal.timeout(10_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not healthy within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * The kept pool and client when they still exist, else new ones: email is the user name, verified by the
 * confirmation code; the client has no secret (a browser holds it) and allows the flows the console uses.
 */
async function ensurePool(
  client: CognitoIdentityProviderClient,
  kept: KeptPool | undefined,
  name: string,
): Promise<{ userPoolId: string; clientId: string }> {
  if (kept) {
    const found = await client
      .send(new DescribeUserPoolClientCommand({ UserPoolId: kept.userPoolId, ClientId: kept.clientId }))
      .then(
        () => true,
        (error: Error) => {
          if (error.name === 'ResourceNotFoundException') return false;
          throw error;
        },
      );
    if (found) return { userPoolId: kept.userPoolId, clientId: kept.clientId };
  }
  const { UserPool } = await client.send(
    new CreateUserPoolCommand({
      PoolName: name,
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      Policies: {
        PasswordPolicy: {
          MinimumLength: 8,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: false,
        },
      },
    }),
  );
  const { UserPoolClient } = await client.send(
    new CreateUserPoolClientCommand({
      UserPoolId: UserPool!.Id!,
      ClientName: `${name}-web`,
      GenerateSecret: false,
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    }),
  );
  return { userPoolId: UserPool!.Id!, clientId: UserPoolClient!.ClientId! };
}

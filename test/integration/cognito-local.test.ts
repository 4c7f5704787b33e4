/**
 * The console's sign-in locally: cognito-local as the local stack starts it (lib/dev/local/cognito.ts), driven by
 * the same SDK calls the console makes in AWS, its tokens checked by the local gateway's JWT authorizer
 * (lib/dev/local/jwt-authorizer.ts). Self sign-up confirms with the fixed code; an invited user sets a password
 * at the first sign-in; a token of another pool or client, or a tampered one, is refused. The pool survives a
 * restart on the same port (tokens name it), and no cognito-local process outlives its stack, not even one
 * whose parent was killed with -9.
 */
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import {
  ConfirmSignUpCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleUser, inviteConsoleUser, temporaryPassword } from '../../lib/ship/admin/console-invite.js';
import { jwtAuthorizer } from '../../lib/dev/local/jwt-authorizer.js';
import type { JwtAuthorizer } from '../../lib/dev/local/jwt-authorizer.js';
import { LOCAL_CONFIRMATION_CODE, POOL_FILE, startLocalCognito } from '../../lib/dev/local/cognito.js';
import type { LocalCognito } from '../../lib/dev/local/cognito.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';

const PASSWORD = 'Sign-up-Passw0rd';

let dataDir: string;
let cognito: LocalCognito;
let authorize: JwtAuthorizer;
const pids: number[] = [];

/** Running (not gone, nor a zombie that its reaper has yet to collect). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The lines of `ps` that are a cognito-local this test started. */
async function cognitoProcesses(): Promise<string[]> {
  const out = await new Promise<string>((resolve) => {
    const ps = spawn('ps', ['-eo', 'pid,stat,args'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    ps.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    ps.on('close', () => resolve(text));
  });
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes('cognito-local') && !/^\d+ Z/.test(line))
    .filter((line) => pids.includes(Number(line.split(' ')[0])));
}

async function signIn(client: CognitoIdentityProviderClient, clientId: string, email: string, password: string) {
  return client.send(
    new InitiateAuthCommand({
      ClientId: clientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cognito-local-test-'));
  const started = performance.now();
  cognito = await startLocalCognito({ dataDir });
  console.log(`cognito-local ready with its pool and client in ${Math.round(performance.now() - started)} ms`);
  pids.push(cognito.pid);
  authorize = jwtAuthorizer({ issuer: cognito.issuer, audience: [cognito.clientId] });
});

afterAll(async () => {
  await cognito?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  for (const pid of pids) expect(alive(pid), `cognito-local ${pid} still runs`).toBe(false);
  expect(await cognitoProcesses()).toEqual([]);
});

describe('the local pool', () => {
  it('is on 127.0.0.1 and its tokens name it as issuer; the ids and port are kept in the data dir', () => {
    expect(cognito.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(cognito.issuer).toBe(`${cognito.endpoint}${cognito.userPoolId}`);
    const kept = JSON.parse(readFileSync(join(dataDir, POOL_FILE), 'utf8')) as Record<string, unknown>;
    expect(kept).toEqual({
      port: Number(new URL(cognito.endpoint).port),
      userPoolId: cognito.userPoolId,
      clientId: cognito.clientId,
    });
    expect(existsSync(join(dataDir, '.cognito'))).toBe(true);
  });

  it('answers a browser page of another origin (CORS), so the SPA calls it directly', async () => {
    const preflight = await fetch(cognito.endpoint, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://127.0.0.1:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-amz-target',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type,x-amz-target');
    const call = await fetch(cognito.endpoint, {
      method: 'POST',
      headers: {
        origin: 'http://127.0.0.1:3000',
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth',
      },
      body: JSON.stringify({
        ClientId: cognito.clientId,
        AuthFlow: 'USER_PASSWORD_AUTH',
        AuthParameters: { USERNAME: 'nobody@example.com', PASSWORD: 'x' },
      }),
    });
    expect(call.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('self sign-up', () => {
  let accessToken: string;
  let refreshToken: string;

  it('signs up, confirms with the fixed code, signs in; the access token passes the gateway’s check', async () => {
    const email = 'new.user@example.com';
    const { UserSub } = await cognito.client.send(
      new SignUpCommand({
        ClientId: cognito.clientId,
        Username: email,
        Password: PASSWORD,
        UserAttributes: [{ Name: 'email', Value: email }],
      }),
    );
    await expect(signIn(cognito.client, cognito.clientId, email, PASSWORD)).rejects.toThrow();
    await cognito.client.send(
      new ConfirmSignUpCommand({
        ClientId: cognito.clientId,
        Username: email,
        ConfirmationCode: LOCAL_CONFIRMATION_CODE,
      }),
    );
    const { AuthenticationResult } = await signIn(cognito.client, cognito.clientId, email, PASSWORD);
    accessToken = AuthenticationResult!.AccessToken!;
    refreshToken = AuthenticationResult!.RefreshToken!;
    const claims = await authorize(`Bearer ${accessToken}`);
    expect(claims).toMatchObject({
      sub: UserSub,
      iss: cognito.issuer,
      client_id: cognito.clientId,
      token_use: 'access',
    });
    expect(Object.values(claims!).every((value) => typeof value === 'string')).toBe(true);
  });

  it('a wrong confirmation code is refused', async () => {
    const email = 'wrong.code@example.com';
    await cognito.client.send(
      new SignUpCommand({
        ClientId: cognito.clientId,
        Username: email,
        Password: PASSWORD,
        UserAttributes: [{ Name: 'email', Value: email }],
      }),
    );
    await expect(
      cognito.client.send(
        new ConfirmSignUpCommand({ ClientId: cognito.clientId, Username: email, ConfirmationCode: '000000' }),
      ),
    ).rejects.toThrow();
  });

  it('the refresh token gives a new access token that passes too', async () => {
    const { AuthenticationResult } = await cognito.client.send(
      new InitiateAuthCommand({
        ClientId: cognito.clientId,
        AuthFlow: 'REFRESH_TOKEN_AUTH',
        AuthParameters: { REFRESH_TOKEN: refreshToken },
      }),
    );
    expect(await authorize(`Bearer ${AuthenticationResult!.AccessToken!}`)).toBeDefined();
  });

  it('a tampered token is refused: another sub, or a changed signature', async () => {
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    expect(await authorize(`Bearer ${header}.${forged}.${signature}`)).toBeUndefined();
    const flipped = `${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expect(await authorize(`Bearer ${header}.${payload}.${flipped}`)).toBeUndefined();
  });

  it('a token of another client of the pool, or of another pool, is refused', async () => {
    const { UserPoolClient } = await cognito.client.send(
      new CreateUserPoolClientCommand({
        UserPoolId: cognito.userPoolId,
        ClientName: 'other',
        ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
      }),
    );
    const otherClient = await signIn(cognito.client, UserPoolClient!.ClientId!, 'new.user@example.com', PASSWORD);
    expect(await authorize(`Bearer ${otherClient.AuthenticationResult!.AccessToken!}`)).toBeUndefined();

    const { UserPool } = await cognito.client.send(
      new CreateUserPoolCommand({ PoolName: 'other-pool', UsernameAttributes: ['email'] }),
    );
    const other = await cognito.client.send(
      new CreateUserPoolClientCommand({
        UserPoolId: UserPool!.Id!,
        ClientName: 'other',
        ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
      }),
    );
    const email = 'elsewhere@example.com';
    const pool = { client: cognito.client, userPoolId: UserPool!.Id! };
    await ensureConsoleUser(pool, email, PASSWORD);
    const otherPool = await signIn(cognito.client, other.UserPoolClient!.ClientId!, email, PASSWORD);
    // Signed with the same key (cognito-local has one), so only the issuer tells them apart.
    expect(await authorize(`Bearer ${otherPool.AuthenticationResult!.AccessToken!}`)).toBeUndefined();
    // The same token checked against its own pool and client passes: the refusal above is the issuer's.
    const itsOwn = jwtAuthorizer({
      issuer: `${cognito.endpoint}${UserPool!.Id!}`,
      audience: [other.UserPoolClient!.ClientId!],
    });
    expect(await itsOwn(`Bearer ${otherPool.AuthenticationResult!.AccessToken!}`)).toBeDefined();
  });
});

describe('an operator’s invitation (admin account:invite)', () => {
  it('the first sign-in must set a password (NEW_PASSWORD_REQUIRED); then the token passes', async () => {
    const email = 'invited@example.com';
    const password = temporaryPassword();
    expect(password).toMatch(/^Vgs-[a-z]{4}-[2-9]{4}!$/);
    const pool = { client: cognito.client, userPoolId: cognito.userPoolId };
    const { sub } = await inviteConsoleUser(pool, email, password);
    const first = await signIn(cognito.client, cognito.clientId, email, password);
    expect(first.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
    expect(first.AuthenticationResult).toBeUndefined();
    const { AuthenticationResult } = await cognito.client.send(
      new RespondToAuthChallengeCommand({
        ClientId: cognito.clientId,
        ChallengeName: 'NEW_PASSWORD_REQUIRED',
        Session: first.Session!,
        ChallengeResponses: { USERNAME: email, NEW_PASSWORD: 'Chosen-Passw0rd' },
      }),
    );
    expect(await authorize(`Bearer ${AuthenticationResult!.AccessToken!}`)).toMatchObject({ sub });
    const again = await signIn(cognito.client, cognito.clientId, email, 'Chosen-Passw0rd');
    expect(again.AuthenticationResult?.AccessToken).toBeDefined();
  });

  it('an email that has a user already is refused, in words', async () => {
    await expect(
      inviteConsoleUser(
        { client: cognito.client, userPoolId: cognito.userPoolId },
        'invited@example.com',
        'Vgs-abcd-2345!',
      ),
    ).rejects.toThrow('a console user with the email invited@example.com already exists');
  });

  it('the demo user: a permanent password, no challenge, the same sub on every start', async () => {
    const pool = { client: cognito.client, userPoolId: cognito.userPoolId };
    const first = await ensureConsoleUser(pool, 'demo@example.com', 'Demo-Passw0rd-1');
    const second = await ensureConsoleUser(pool, 'demo@example.com', 'Demo-Passw0rd-2');
    expect(first.created).toBe(true);
    expect(second).toEqual({ sub: first.sub, created: false });
    await expect(signIn(cognito.client, cognito.clientId, 'demo@example.com', 'Demo-Passw0rd-1')).rejects.toThrow();
    const { AuthenticationResult, ChallengeName } = await signIn(
      cognito.client,
      cognito.clientId,
      'demo@example.com',
      'Demo-Passw0rd-2',
    );
    expect(ChallengeName).toBeUndefined();
    expect(await authorize(`Bearer ${AuthenticationResult!.AccessToken!}`)).toMatchObject({ sub: first.sub });
  });
});

describe('a restart and the end of the process', () => {
  it('restarted on the same data: the same port, pool and client; an earlier token still passes', async () => {
    const { AuthenticationResult } = await signIn(cognito.client, cognito.clientId, 'new.user@example.com', PASSWORD);
    const before = { endpoint: cognito.endpoint, userPoolId: cognito.userPoolId, clientId: cognito.clientId };
    await cognito.stop();
    expect(alive(cognito.pid)).toBe(false);
    const started = performance.now();
    cognito = await startLocalCognito({ dataDir });
    console.log(`cognito-local restarted on its kept pool in ${Math.round(performance.now() - started)} ms`);
    pids.push(cognito.pid);
    expect({ endpoint: cognito.endpoint, userPoolId: cognito.userPoolId, clientId: cognito.clientId }).toEqual(before);
    const fresh = jwtAuthorizer({ issuer: cognito.issuer, audience: [cognito.clientId] });
    expect(await fresh(`Bearer ${AuthenticationResult!.AccessToken!}`)).toBeDefined();
    expect(
      (await signIn(cognito.client, cognito.clientId, 'new.user@example.com', PASSWORD)).AuthenticationResult,
    ).toBeDefined();
  });

  it('without a data dir it runs in a temporary directory, removed when it stops', async () => {
    // Its own directory, not a count of the system's: other test files start stacks with theirs meanwhile.
    const memory = await startLocalCognito();
    pids.push(memory.pid);
    expect(memory.directory.startsWith(join(tmpdir(), 'cognito-local-'))).toBe(true);
    expect(existsSync(memory.directory)).toBe(true);
    expect((await fetch(`${memory.endpoint}health`)).ok).toBe(true);
    await memory.stop();
    expect(alive(memory.pid)).toBe(false);
    expect(existsSync(memory.directory)).toBe(false);
  });

  it('exits with its parent, even one killed with -9', async () => {
    const dir = join(dataDir, 'orphan');
    const script =
      `const { startLocalCognito } = await import(${JSON.stringify(join(REPOSITORY_ROOT, 'lib/dev/local/cognito.ts'))});` +
      `const cognito = await startLocalCognito({ dataDir: ${JSON.stringify(dir)} });` +
      'console.log(cognito.pid); setInterval(() => {}, 60_000);';
    const parent = spawn(
      process.execPath,
      ['--import', 'tsx', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script],
      {
        cwd: REPOSITORY_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      parent.once('exit', () => reject(new Error('the parent exited first')));
    });
    pids.push(pid);
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 60_000;
    while (alive(pid) && Date.now() < deadline) await sleep(50);
    expect(alive(pid)).toBe(false);
  });
});

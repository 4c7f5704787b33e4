/**
 * The console's API end to end (docs/console.md): a user signs up with the local Cognito, the gateway checks the
 * token as API Gateway's JWT authorizer does, the first request opens an account with 0 CNY; a key made in the
 * console pays for a task over the public API once a code is redeemed; a disabled key is refused; the webhook
 * test event verifies with the revealed secret; every figure reconciles with the ledger.
 */
import {
  CognitoIdentityProviderClient,
  ConfirmSignUpCommand,
  InitiateAuthCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedStack } from '../support/shared-stack.js';
import type { SharedStack } from '../support/shared-stack.js';
import { callApi, pollUntil } from '../support/test-stack.js';

let stack: SharedStack;
let cognito: CognitoIdentityProviderClient;
const received: { headers: Record<string, string>; body: string }[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    received.push({ headers: req.headers as Record<string, string>, body });
    res.writeHead(200).end('ok');
  });
});

beforeAll(async () => {
  stack = sharedStack();
  const { endpoint, region } = stack.console.cognito;
  cognito = new CognitoIdentityProviderClient({
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  cognito?.destroy();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** Signs a new user up, confirms with the local code and signs in: the access and ID tokens. */
async function signUp(): Promise<{ email: string; access: string; id: string }> {
  const { clientId, confirmationCode } = stack.console.cognito;
  const email = `user-${randomUUID().slice(0, 8)}@example.com`;
  const password = `Pw-${randomUUID()}!`;
  await cognito.send(
    new SignUpCommand({
      ClientId: clientId,
      Username: email,
      Password: password,
      UserAttributes: [{ Name: 'email', Value: email }],
    }),
  );
  await cognito.send(
    new ConfirmSignUpCommand({ ClientId: clientId, Username: email, ConfirmationCode: confirmationCode }),
  );
  const { AuthenticationResult } = await cognito.send(
    new InitiateAuthCommand({
      ClientId: clientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
  return { email, access: AuthenticationResult!.AccessToken!, id: AuthenticationResult!.IdToken! };
}

type Json = Record<string, unknown>;
const consoleCall = <T = Json>(token: string, method: string, path: string, body?: unknown) =>
  callApi<T>(stack, method, `/api/v1/console${path}`, { key: token, ...(body !== undefined ? { body } : {}) });

describe('the console API', () => {
  it('refuses a request without a valid access token, as API Gateway does', async () => {
    const user = await signUp();
    for (const token of [undefined, 'not-a-jwt', `${user.access.slice(0, -4)}AAAA`, stack.demo.apiKey]) {
      const response = await fetch(`${stack.baseUrl}/api/v1/console/account`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ message: 'Unauthorized' });
    }
    // An ID token verifies (same pool, same client) but lacks the access tokens' scope: the gateway's 403.
    const withIdToken = await consoleCall(user.id, 'GET', '/account');
    expect(withIdToken.status).toBe(403);
    expect(withIdToken.body).toEqual({ message: 'Forbidden' });
  });

  it('a new user: account at 0, a key that pays once a code is redeemed, disable, ledger and spend agree', async () => {
    const user = await signUp();
    const account = await consoleCall<Json>(user.access, 'GET', '/account');
    expect(account.status).toBe(200);
    expect(account.body.data).toMatchObject({ balance: 0, currency: 'CNY', spent_this_month: 0, tasks_this_month: 0 });
    const accountId = account.body.data['account_id'] as string;

    const created = await consoleCall<Json>(user.access, 'POST', '/keys', { name: 'ci', quota: 50 });
    expect(created.status).toBe(200);
    const key = created.body.data['key'] as string;
    expect(key).toMatch(/^bc_/);
    const submit = () =>
      callApi<Json>(stack, 'POST', '/api/v1/video/generate', {
        key,
        body: { model: 'seedance-1.5-pro', prompt: 'a lighthouse at dusk', duration: 5 },
      });
    expect((await submit()).status).toBe(402);

    const { codes } = await stack.admin.createRedeemCodes('20', 1, 7);
    const redeemed = await consoleCall<Json>(user.access, 'POST', '/redeem', { code: codes[0] });
    expect(redeemed.body.data).toEqual({ amount: 20, balance: 20, already_redeemed_at: null });
    // Again: the same answer, saying it was redeemed before and nothing was added now.
    expect((await consoleCall(user.access, 'POST', '/redeem', { code: codes[0] })).body.data).toEqual({
      amount: 20,
      balance: 20,
      already_redeemed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const paid = await submit();
    expect(paid.status).toBe(200);
    const taskId = paid.body.data['task_id'] as string;
    const cost = paid.body.data['cost'] as number;

    const tasks = await pollUntil(
      () => consoleCall<{ items: Json[] }>(user.access, 'GET', '/tasks'),
      (response) => response.body.data.items.some((task) => task['task_id'] === taskId),
      { timeoutMs: 30_000 },
    );
    expect(tasks.body.data.items).toHaveLength(1);
    expect((await consoleCall<Json>(user.access, 'GET', `/tasks/${taskId}`)).body.data['task_id']).toBe(taskId);

    const keys = await consoleCall<{ items: Json[] }>(user.access, 'GET', '/keys');
    expect(keys.body.data.items).toEqual([
      expect.objectContaining({ name: 'ci', quota: 50, spent: cost, last_used_at: expect.any(String) }),
    ]);
    const overview = await consoleCall<Json>(user.access, 'GET', '/account');
    expect(overview.body.data).toMatchObject({ balance: 20 - cost, spent_this_month: cost, tasks_this_month: 1 });
    const ledger = await consoleCall<{ items: Json[] }>(user.access, 'GET', '/transactions');
    const entries = ledger.body.data.items.map((entry) => [entry['type'], entry['amount']]);
    expect(entries.sort()).toEqual([
      ['charge', -cost],
      ['topup', 20],
    ]);

    const keyId = created.body.data['key_id'] as string;
    const disabled = await consoleCall<Json>(user.access, 'PATCH', `/keys/${keyId}`, { status: 'disabled' });
    expect(disabled.body.data['status']).toBe('disabled');
    expect((await submit()).status).toBe(401);

    // Another user sees none of it.
    const other = await signUp();
    expect((await consoleCall<Json>(other.access, 'GET', `/tasks/${taskId}`)).status).toBe(403);
    expect((await consoleCall<Json>(other.access, 'PATCH', `/keys/${keyId}`, { status: 'active' })).status).toBe(404);
    expect((await consoleCall<Json>(other.access, 'GET', '/account')).body.data['account_id']).not.toBe(accountId);
  });

  it('reveals and rotates the webhook secret; the test event verifies with it', async () => {
    const user = await signUp();
    const first = await consoleCall<Json>(user.access, 'GET', '/webhook-secret');
    expect(first.body.data).toMatchObject({ secret: expect.stringMatching(/^whsec_/), previous_valid_until: null });
    const rotated = await consoleCall<Json>(user.access, 'POST', '/webhook-secret/rotate');
    expect(rotated.body.data['secret']).not.toBe(first.body.data['secret']);
    expect(rotated.body.data['previous_valid_until']).toEqual(expect.any(String));

    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const sent = await consoleCall<Json>(user.access, 'POST', '/webhook-test', { url });
    expect(sent.body.data).toMatchObject({ delivered: true, status_code: 200, error: null });
    const request = received.find((r) => r.headers['webhook-id'] === sent.body.data['webhook_id'])!;
    const payload = new Webhook(rotated.body.data['secret'] as string).verify(request.body, request.headers);
    expect(payload).toMatchObject({ type: 'task.succeeded', status: 'success', test: true });
    // Signed by the previous secret too, during its overlap.
    expect(() => new Webhook(first.body.data['secret'] as string).verify(request.body, request.headers)).not.toThrow();

    const bad = await consoleCall<Json>(user.access, 'POST', '/webhook-test', { url: 'not a url' });
    expect(bad.status).toBe(400);
    const models = await consoleCall<Json[]>(user.access, 'GET', '/models');
    expect(models.body.data.length).toBeGreaterThan(0);
  });
});

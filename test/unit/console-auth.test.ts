/**
 * The console's Cognito client (plain fetch, X-Amz-Target) and its API client: the wire format, errors in words,
 * the session in sessionStorage, and a 401 answered by one REFRESH_TOKEN_AUTH and one retry.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, ConsoleApi, SessionExpiredError } from '../../lib/ship/console/src/api.js';
import { CognitoClient, CognitoError, errorTypeOf } from '../../lib/ship/console/src/cognito.js';
import { SessionStore } from '../../lib/ship/console/src/session.js';
import type { KeyValueStore } from '../../lib/ship/console/src/session.js';

const CONFIG = { endpoint: 'http://127.0.0.1:9229/', region: 'local', userPoolId: 'local_pool', clientId: 'client-1' };

interface Call {
  url: string;
  init: RequestInit;
}

function fakeFetch(answer: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const call = { url: String(input), init: init ?? {} };
    calls.push(call);
    return answer(call);
  }) as typeof fetch;
  return { calls, fetchImpl };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => void data.set(key, value),
    removeItem: (key) => void data.delete(key),
  };
}

const target = (call: Call) => (call.init.headers as Record<string, string>)['X-Amz-Target'] ?? '';
const bodyOf = (call: Call) => JSON.parse(String(call.init.body)) as Record<string, unknown>;

describe('CognitoClient', () => {
  it('signs in with USER_PASSWORD_AUTH in the JSON 1.1 protocol', async () => {
    const { calls, fetchImpl } = fakeFetch(() =>
      json(200, { AuthenticationResult: { AccessToken: 'a', IdToken: 'i', RefreshToken: 'r', ExpiresIn: 60 } }),
    );
    const result = await new CognitoClient(CONFIG, fetchImpl, () => 1000).signIn('a@example.com', 'Pw1!aaaa');
    expect(result).toEqual({
      kind: 'signed-in',
      tokens: { accessToken: 'a', idToken: 'i', refreshToken: 'r', expiresAt: 61_000 },
    });
    expect(calls[0]?.url).toBe(CONFIG.endpoint);
    expect(calls[0]?.init.method).toBe('POST');
    expect((calls[0]?.init.headers as Record<string, string>)['Content-Type']).toBe('application/x-amz-json-1.1');
    expect(target(calls[0] as Call)).toBe('AWSCognitoIdentityProviderService.InitiateAuth');
    expect(bodyOf(calls[0] as Call)).toEqual({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: 'client-1',
      AuthParameters: { USERNAME: 'a@example.com', PASSWORD: 'Pw1!aaaa' },
    });
  });

  it('passes on the NEW_PASSWORD_REQUIRED challenge and answers it', async () => {
    const { calls, fetchImpl } = fakeFetch((call) =>
      target(call).endsWith('InitiateAuth')
        ? json(200, { ChallengeName: 'NEW_PASSWORD_REQUIRED', Session: 's-1', ChallengeParameters: {} })
        : json(200, { AuthenticationResult: { AccessToken: 'a', IdToken: 'i', RefreshToken: 'r', ExpiresIn: 60 } }),
    );
    const cognito = new CognitoClient(CONFIG, fetchImpl);
    expect(await cognito.signIn('invited@example.com', 'Temp1!aa')).toEqual({
      kind: 'new-password-required',
      session: 's-1',
    });
    const answer = await cognito.setNewPassword('invited@example.com', 'New1!pass', 's-1');
    expect(answer.kind).toBe('signed-in');
    expect(target(calls[1] as Call)).toBe('AWSCognitoIdentityProviderService.RespondToAuthChallenge');
    expect(bodyOf(calls[1] as Call)).toEqual({
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId: 'client-1',
      Session: 's-1',
      ChallengeResponses: { USERNAME: 'invited@example.com', NEW_PASSWORD: 'New1!pass' },
    });
  });

  it('signs up with the email as username and attribute, then confirms the code', async () => {
    const { calls, fetchImpl } = fakeFetch(() => json(200, { UserConfirmed: false, UserSub: 'sub' }));
    const cognito = new CognitoClient(CONFIG, fetchImpl);
    expect(await cognito.signUp('new@example.com', 'Pw1!aaaa')).toEqual({ confirmed: false });
    await cognito.confirmSignUp('new@example.com', '123456');
    expect(bodyOf(calls[0] as Call)).toMatchObject({
      Username: 'new@example.com',
      UserAttributes: [{ Name: 'email', Value: 'new@example.com' }],
    });
    expect(target(calls[1] as Call)).toBe('AWSCognitoIdentityProviderService.ConfirmSignUp');
    expect(bodyOf(calls[1] as Call)).toEqual({
      ClientId: 'client-1',
      Username: 'new@example.com',
      ConfirmationCode: '123456',
    });
  });

  it('keeps the refresh token when REFRESH_TOKEN_AUTH returns none', async () => {
    const { calls, fetchImpl } = fakeFetch(() =>
      json(200, { AuthenticationResult: { AccessToken: 'a2', IdToken: 'i2', ExpiresIn: 3600 } }),
    );
    const tokens = await new CognitoClient(CONFIG, fetchImpl).refresh('r-1');
    expect(tokens.refreshToken).toBe('r-1');
    expect(bodyOf(calls[0] as Call)).toEqual({
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: 'client-1',
      AuthParameters: { REFRESH_TOKEN: 'r-1' },
    });
  });

  type Step = (cognito: CognitoClient) => Promise<unknown>;
  const signIn: Step = (cognito) => cognito.signIn('a@example.com', 'x');
  const signUp: Step = (cognito) => cognito.signUp('a@example.com', 'x');
  const confirm: Step = (cognito) => cognito.confirmSignUp('a@example.com', '000000');
  const newPassword: Step = (cognito) => cognito.setNewPassword('a@example.com', 'x', 's-1');
  it.each<[string, string, string, Step, RegExp]>([
    ['UsernameExistsException', 'User already exists', 'SignUp', signUp, /already exists/],
    ['CodeMismatchException', 'Invalid verification code provided', 'ConfirmSignUp', confirm, /code is not right/],
    ['NotAuthorizedException', 'Incorrect username or password.', 'InitiateAuth', signIn, /Wrong email or password/],
    // cognito-local's answer to a wrong password:
    ['InvalidPasswordException', 'Invalid password', 'InitiateAuth', signIn, /Wrong email or password/],
    [
      'InvalidPasswordException',
      'Password did not conform with policy: Password not long enough',
      'SignUp',
      signUp,
      /not strong enough: Password not long enough/,
    ],
    ['InvalidPasswordException', 'Password not long enough', 'RespondToAuthChallenge', newPassword, /not strong/],
    ['NotAuthorizedException', 'Invalid session', 'RespondToAuthChallenge', newPassword, /attempt has expired/],
    ['UserNotConfirmedException', 'User is not confirmed.', 'InitiateAuth', signIn, /not confirmed/],
  ])('says %s (%s) in words', async (type, message, action, step, words) => {
    const { fetchImpl } = fakeFetch(() => json(400, { __type: type, message }));
    const error = await step(new CognitoClient(CONFIG, fetchImpl)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CognitoError);
    expect((error as CognitoError).type).toBe(type);
    expect((error as CognitoError).action).toBe(action);
    expect((error as CognitoError).message).toMatch(words);
  });

  it('reads the exception name in every shape AWS sends it', () => {
    expect(errorTypeOf('CodeMismatchException')).toBe('CodeMismatchException');
    expect(errorTypeOf('com.amazonaws.cognito#CodeMismatchException')).toBe('CodeMismatchException');
    expect(errorTypeOf('CodeMismatchException:http://internal.amazon.com/')).toBe('CodeMismatchException');
  });
});

describe('ConsoleApi', () => {
  function signedIn() {
    const store = memoryStore();
    const session = new SessionStore(store);
    session.set({ accessToken: 'old', idToken: 'i', refreshToken: 'r', expiresAt: 0, email: 'a@example.com' });
    return { store, session };
  }

  it('sends the access token and unwraps the envelope', async () => {
    const { session } = signedIn();
    const { calls, fetchImpl } = fakeFetch(() => json(200, { code: 0, message: 'success', data: { balance: 1.5 } }));
    const cognito = new CognitoClient(CONFIG, fakeFetch(() => json(500, {})).fetchImpl);
    const account = await new ConsoleApi('', session, cognito, fetchImpl).account();
    expect(account).toEqual({ balance: 1.5 });
    expect(calls[0]?.url).toBe('/api/v1/console/account');
    expect((calls[0]?.init.headers as Record<string, string>)['Authorization']).toBe('Bearer old');
  });

  it("shows the envelope's message on an error", async () => {
    const { session } = signedIn();
    const { fetchImpl } = fakeFetch(() => json(400, { code: 400, message: 'this code was already used', data: null }));
    const api = new ConsoleApi('', session, new CognitoClient(CONFIG, fetchImpl), fetchImpl);
    const error = await api.redeem('X').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('this code was already used');
  });

  it('refreshes once on a 401 and retries with the new token', async () => {
    const { session } = signedIn();
    const api = fakeFetch((call) =>
      (call.init.headers as Record<string, string>)['Authorization'] === 'Bearer new'
        ? json(200, { code: 0, message: 'success', data: { items: [] } })
        : json(401, { message: 'Unauthorized' }),
    );
    const idp = fakeFetch(() =>
      json(200, { AuthenticationResult: { AccessToken: 'new', IdToken: 'i2', ExpiresIn: 3600 } }),
    );
    const client = new ConsoleApi(
      'https://console.example.com',
      session,
      new CognitoClient(CONFIG, idp.fetchImpl),
      api.fetchImpl,
    );
    expect(await client.keys()).toEqual({ items: [] });
    expect(api.calls.map((c) => c.url)).toEqual([
      'https://console.example.com/api/v1/console/keys',
      'https://console.example.com/api/v1/console/keys',
    ]);
    expect(idp.calls).toHaveLength(1);
    expect(session.get()?.accessToken).toBe('new');
    expect(session.get()?.refreshToken).toBe('r');
  });

  it('ends the session when the refresh is refused or the retry is 401 again', async () => {
    for (const refreshAnswer of [
      () => json(400, { __type: 'NotAuthorizedException', message: 'Refresh Token has expired' }),
      () => json(200, { AuthenticationResult: { AccessToken: 'still-bad', IdToken: 'i', ExpiresIn: 60 } }),
    ]) {
      const { session, store } = signedIn();
      const api = fakeFetch(() => json(401, { message: 'Unauthorized' }));
      const idp = fakeFetch(refreshAnswer);
      const client = new ConsoleApi('', session, new CognitoClient(CONFIG, idp.fetchImpl), api.fetchImpl);
      const error = await client.account().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SessionExpiredError);
      expect(idp.calls).toHaveLength(1);
      expect(session.get()).toBeNull();
      expect(store.data.size).toBe(0);
      expect(session.takeNotice()).toMatch(/expired/);
    }
  });

  it('shares one refresh between parallel 401s', async () => {
    const { session } = signedIn();
    const api = fakeFetch((call) =>
      (call.init.headers as Record<string, string>)['Authorization'] === 'Bearer new'
        ? json(200, { code: 0, message: 'success', data: null })
        : json(401, { message: 'Unauthorized' }),
    );
    const idp = fakeFetch(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return json(200, { AuthenticationResult: { AccessToken: 'new', IdToken: 'i', ExpiresIn: 60 } });
    });
    const client = new ConsoleApi('', session, new CognitoClient(CONFIG, idp.fetchImpl), api.fetchImpl);
    await Promise.all([client.account(), client.keys(), client.models()]);
    expect(idp.calls).toHaveLength(1);
  });

  it('signing out clears everything the console kept', () => {
    const { session, store } = signedIn();
    session.setPending({ email: 'a@example.com' });
    session.clear();
    expect(store.data.size).toBe(0);
  });
});

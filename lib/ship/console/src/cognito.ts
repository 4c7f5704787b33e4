/**
 * Amazon Cognito user pools from the browser without an SDK: each call is one JSON POST with the action in
 * `X-Amz-Target` (the same wire protocol the SDK speaks, and the one cognito-local answers locally).
 * Nothing here touches the DOM, so it runs under Node in the unit tests with a fake `fetch`.
 */

export interface CognitoConfig {
  /** "https://cognito-idp.<region>.amazonaws.com/" in AWS, "http://127.0.0.1:<port>/" locally. */
  endpoint: string;
  region: string;
  userPoolId: string;
  clientId: string;
}

/** The tokens of a signed-in user; `expiresAt` is epoch milliseconds for the access token. */
export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  expiresAt: number;
}

export type SignInResult =
  | { kind: 'signed-in'; tokens: Tokens }
  | { kind: 'new-password-required'; session: string }
  | { kind: 'unsupported-challenge'; challenge: string };

/** A Cognito error: `type` is the exception name (e.g. "CodeMismatchException"), `message` is for people. */
export class CognitoError extends Error {
  override readonly name = 'CognitoError';
  constructor(
    readonly type: string,
    readonly serviceMessage: string,
    /** The call that failed ("InitiateAuth", "SignUp", …): the same exception means different things. */
    readonly action = '',
  ) {
    super(describeCognitoError(type, serviceMessage, action));
  }
}

type Fetch = typeof fetch;

interface AuthenticationResult {
  AccessToken: string;
  IdToken: string;
  RefreshToken?: string;
  ExpiresIn?: number;
}

interface InitiateAuthResponse {
  AuthenticationResult?: AuthenticationResult;
  ChallengeName?: string;
  Session?: string;
}

export class CognitoClient {
  constructor(
    private readonly config: CognitoConfig,
    private readonly fetchImpl: Fetch = (...args) => fetch(...args),
    private readonly now: () => number = () => Date.now(),
  ) {}

  async signUp(email: string, password: string): Promise<{ confirmed: boolean }> {
    const answer = await this.call<{ UserConfirmed?: boolean }>('SignUp', {
      ClientId: this.config.clientId,
      Username: email,
      Password: password,
      UserAttributes: [{ Name: 'email', Value: email }],
    });
    return { confirmed: answer.UserConfirmed === true };
  }

  async confirmSignUp(email: string, code: string): Promise<void> {
    await this.call('ConfirmSignUp', { ClientId: this.config.clientId, Username: email, ConfirmationCode: code });
  }

  async resendCode(email: string): Promise<void> {
    await this.call('ResendConfirmationCode', { ClientId: this.config.clientId, Username: email });
  }

  async signIn(email: string, password: string): Promise<SignInResult> {
    const answer = await this.call<InitiateAuthResponse>('InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: this.config.clientId,
      AuthParameters: { USERNAME: email, PASSWORD: password },
    });
    return this.toSignInResult(answer);
  }

  /** Answers the NEW_PASSWORD_REQUIRED challenge of an invited user (a temporary password). */
  async setNewPassword(email: string, newPassword: string, session: string): Promise<SignInResult> {
    const answer = await this.call<InitiateAuthResponse>('RespondToAuthChallenge', {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId: this.config.clientId,
      Session: session,
      ChallengeResponses: { USERNAME: email, NEW_PASSWORD: newPassword },
    });
    return this.toSignInResult(answer);
  }

  /** New access and id tokens; Cognito does not return a new refresh token, so the old one is kept. */
  async refresh(refreshToken: string): Promise<Tokens> {
    const answer = await this.call<InitiateAuthResponse>('InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: this.config.clientId,
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    });
    if (!answer.AuthenticationResult) {
      throw new CognitoError('NotAuthorizedException', 'Refresh Token returned no tokens', 'InitiateAuth');
    }
    return this.toTokens(answer.AuthenticationResult, refreshToken);
  }

  private toSignInResult(answer: InitiateAuthResponse): SignInResult {
    if (answer.AuthenticationResult) return { kind: 'signed-in', tokens: this.toTokens(answer.AuthenticationResult) };
    if (answer.ChallengeName === 'NEW_PASSWORD_REQUIRED' && answer.Session) {
      return { kind: 'new-password-required', session: answer.Session };
    }
    return { kind: 'unsupported-challenge', challenge: answer.ChallengeName ?? 'unknown' };
  }

  private toTokens(result: AuthenticationResult, previousRefreshToken?: string): Tokens {
    const refreshToken = result.RefreshToken ?? previousRefreshToken;
    if (!refreshToken) throw new CognitoError('NotAuthorizedException', 'no refresh token returned');
    return {
      accessToken: result.AccessToken,
      idToken: result.IdToken,
      refreshToken,
      expiresAt: this.now() + (result.ExpiresIn ?? 3600) * 1000,
    };
  }

  private async call<T = unknown>(action: string, body: unknown): Promise<T> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.config.endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-amz-json-1.1',
          'X-Amz-Target': `AWSCognitoIdentityProviderService.${action}`,
        },
        body: JSON.stringify(body),
      });
    } catch {
      throw new CognitoError('NetworkError', 'the sign-in service could not be reached', action);
    }
    const text = await response.text();
    const json = parseObject(text);
    if (!response.ok) {
      const rawType = String(json['__type'] ?? response.headers.get('x-amzn-errortype') ?? 'UnknownError');
      const message = String(json['message'] ?? json['Message'] ?? `HTTP ${response.status}`);
      throw new CognitoError(errorTypeOf(rawType), message, action);
    }
    return json as T;
  }
}

/** "com.amazonaws...#CodeMismatchException" or "CodeMismatchException:http://..." → "CodeMismatchException". */
export function errorTypeOf(raw: string): string {
  const afterHash = raw.includes('#') ? raw.slice(raw.lastIndexOf('#') + 1) : raw;
  return afterHash.split(':')[0] ?? afterHash;
}

/** Cognito's exceptions in words a customer can act on. */
export function describeCognitoError(type: string, serviceMessage: string, action = ''): string {
  const signingIn = action === 'InitiateAuth';
  switch (type) {
    case 'UsernameExistsException':
      return 'An account with this email already exists. Sign in instead.';
    case 'CodeMismatchException':
      return 'That confirmation code is not right. Check the email we sent and try again.';
    case 'ExpiredCodeException':
      return 'That confirmation code has expired. Ask for a new one.';
    case 'NotAuthorizedException':
      if (/refresh token/i.test(serviceMessage)) return 'Your session has expired. Sign in again.';
      if (action === 'RespondToAuthChallenge') {
        return 'This sign-in attempt has expired. Sign in again with your temporary password.';
      }
      if (signingIn || action === '') return 'Wrong email or password.';
      return serviceMessage || 'This is not allowed for your account.';
    case 'UserNotFoundException':
      return 'There is no account with this email. Sign up first.';
    case 'InvalidPasswordException':
      // cognito-local answers a wrong password at sign-in with this exception; AWS with NotAuthorizedException.
      if (signingIn) return 'Wrong email or password.';
      return `That password is not strong enough: ${serviceMessage.replace(/^Password did not conform with policy:\s*/i, '')}`;
    case 'UserNotConfirmedException':
      return 'Your email is not confirmed yet: enter the code we sent you.';
    case 'PasswordResetRequiredException':
      return 'You must reset your password before signing in.';
    case 'LimitExceededException':
    case 'TooManyRequestsException':
    case 'TooManyFailedAttemptsException':
      return 'Too many attempts. Wait a minute and try again.';
    case 'InvalidParameterException':
      return `Please check what you entered: ${serviceMessage}`;
    case 'NetworkError':
      return 'The sign-in service could not be reached. Check your connection and try again.';
    default:
      return serviceMessage || 'Something went wrong while signing in. Try again.';
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = text ? JSON.parse(text) : {};
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

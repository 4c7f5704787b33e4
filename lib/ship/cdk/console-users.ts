/**
 * Who may sign in to the customer console (docs/console.md): a Cognito user pool and the console's app client.
 * Customers sign themselves up with their email (a code confirms it) or are invited by an operator
 * (`admin account:invite`); the SPA calls Cognito's API directly (USER_PASSWORD_AUTH, REFRESH_TOKEN_AUTH)
 * and sends the access token to the console routes, which API Gateway's JWT authorizer checks (api.ts).
 * The pool holds the customers' identities, so it lives in the stateful stack, retained and protected.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  UserPool,
  UserPoolClientIdentityProvider,
  VerificationEmailStyle,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

/** The password rules; the SPA states them on its sign-up form. */
export const CONSOLE_PASSWORD_POLICY = {
  minLength: 12,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
} as const;

export interface ConsoleUsersProps {
  readonly prefix: string;
}

export class ConsoleUsers extends Construct {
  readonly userPool: UserPool;
  /** The SPA's app client: public (no secret), username-password and refresh flows only, no OAuth. */
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: ConsoleUsersProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `${props.prefix}-console-users`,
      selfSignUpEnabled: true,
      // The email is the user name; Cognito's own `sub` is the id the service keys accounts by.
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      keepOriginal: { email: true },
      userVerification: {
        emailStyle: VerificationEmailStyle.CODE,
        emailSubject: 'Your video API console verification code',
        emailBody: 'Your verification code is {####}',
      },
      userInvitation: {
        emailSubject: 'You are invited to the video API console',
        emailBody:
          'Sign in to the console with the user name {username} and the temporary password {####}; you will be ' +
          'asked to choose your own password.',
      },
      passwordPolicy: { ...CONSOLE_PASSWORD_POLICY, tempPasswordValidity: Duration.days(7) },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      mfa: Mfa.OFF,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.client = this.userPool.addClient('ConsoleClient', {
      userPoolClientName: `${props.prefix}-console`,
      // A browser app cannot keep a secret.
      generateSecret: false,
      // CDK adds ALLOW_REFRESH_TOKEN_AUTH to any explicit flows.
      authFlows: { userPassword: true },
      disableOAuth: true,
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
    });

    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is off until the console handles its sign-in challenges (SOFTWARE_TOKEN_MFA, MFA_SETUP): with MFA ' +
          'optional a user who enrolled a TOTP device through the API could no longer sign in to the console.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'Essentials feature plan: the Plus plan (threat protection, compromised-credential checks) is billed per ' +
          'monthly active user; the password policy (12+ characters, all classes) and email verification stand for now.',
      },
    );
  }

  /** The issuer of the pool's tokens, as API Gateway's JWT authorizer and aws-jwt-verify expect it. */
  get issuer(): string {
    return `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${this.userPool.userPoolId}`;
  }
}

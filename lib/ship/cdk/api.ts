/**
 * The public API: an API Gateway HTTP API with one route per endpoint of lib/ship/routes.ts, each to its own
 * function, and the `$default` route to the not-found function (so unknown paths still get the envelope).
 * Authentication, per-key rate limits and billing are the functions' job (they need the key's account);
 * the stage's throttling is only a backstop that keeps a flood from reaching Lambda and DynamoDB. The
 * console's routes (`auth: 'jwt'` in lib/ship/routes.ts) are the exception: API Gateway's JWT authorizer lets
 * through only Cognito access tokens of the console's user pool and app client (console-users.ts).
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import type { CfnStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { ApiMapping, HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IDomainName } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { RouteDefinition } from '../routes.js';
import type { RouteThrottle } from './route-throttles.js';

export interface ApiThrottle {
  /** Steady requests per second, across all callers. */
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/** Keys we size for calling at once, each at up to DEFAULT_RATE_LIMIT_PER_SECOND (10/s in AWS). */
export const EXPECTED_CONCURRENT_KEYS = 200;

/**
 * The stage's own throttle, far above the per-key limits: 2.5× what EXPECTED_CONCURRENT_KEYS keys at the default
 * rate send (2,000/s), so only a flood trips it. Its burst is the most the account's bucket holds (API Gateway
 * quotas: 10,000 requests/s and a burst of 5,000 per account and Region, shared by its APIs; a stage cannot
 * exceed them). What trips it is answered by API Gateway, not by us: 429 `{"message":"Too Many Requests"}`
 * without Retry-After, which an HTTP API cannot change (gateway responses exist for REST APIs only);
 * docs/api-contract.md, "Envelope and errors", says so to clients.
 */
export const DEFAULT_API_THROTTLE: ApiThrottle = { rateLimit: 5_000, burstLimit: 5_000 };

export interface ServiceApiProps {
  readonly prefix: string;
  /** Each route with the function that serves it. */
  readonly routes: readonly { readonly route: RouteDefinition; readonly handler: IFunction }[];
  /** Serves every request no route matches (`$default`). */
  readonly defaultHandler: IFunction;
  /** @default DEFAULT_API_THROTTLE */
  readonly throttle?: ApiThrottle;
  /** Each route's own throttle (route-throttles.ts), under the stage's. */
  readonly routeThrottles?: readonly RouteThrottle[];
  /** Who signs the tokens of the `auth: 'jwt'` routes: the console's user pool and its app client. */
  readonly jwt: ConsoleJwt;
  /**
   * The custom domain the API is served at (service-domains.ts): the execute-api endpoint is then disabled, so
   * every caller comes through CloudFront and its web ACL (docs/security.md, "The edge").
   */
  readonly domainName?: IDomainName;
}

export interface ConsoleJwt {
  /** `https://cognito-idp.<region>.amazonaws.com/<user pool id>` (ConsoleUsers.issuer). */
  readonly issuer: string;
  /** The app client ids whose tokens are accepted (an access token carries it as `client_id`). */
  readonly audience: readonly string[];
  /** Scopes a token must hold (any one): the access tokens' scope, so an ID token is refused. */
  readonly scopes: readonly string[];
}

/**
 * One JSON object per request; no headers, so API keys never reach the logs, and the route's template
 * (`routeKey`), not the raw path, so the upstream callback's per-task secret (a path segment) never does.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    requestTime: '$context.requestTime',
    method: '$context.httpMethod',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationStatus: '$context.integrationStatus',
    integrationError: '$context.integrationErrorMessage',
  }),
);

export class ServiceApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  /** Guards every `auth: 'jwt'` route. */
  readonly jwtAuthorizer: HttpJwtAuthorizer;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `${props.prefix}-api`,
      description: 'Video generation service API',
      // The stage is made below, to give it access logs and throttling.
      createDefaultStage: false,
      disableExecuteApiEndpoint: props.domainName !== undefined,
      defaultIntegration: new HttpLambdaIntegration('DefaultIntegration', props.defaultHandler),
    });
    // API Gateway accepts a token whose `aud`, or when it has none (Cognito access tokens) whose `client_id`,
    // is in the audience ("Troubleshooting issues with HTTP API JWT authorizers", API Gateway guide).
    this.jwtAuthorizer = new HttpJwtAuthorizer('ConsoleJwtAuthorizer', props.jwt.issuer, {
      authorizerName: `${props.prefix}-console-jwt`,
      jwtAudience: [...props.jwt.audience],
      identitySource: ['$request.header.Authorization'],
    });
    for (const { route, handler } of props.routes) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${route.id}Integration`, handler),
        ...(route.auth === 'jwt' && {
          authorizer: this.jwtAuthorizer,
          // "Configure your routes to require authorization scopes" so an ID token cannot stand in for an
          // access token (API Gateway guide, "Control access to HTTP APIs with JWT authorizers").
          authorizationScopes: [...props.jwt.scopes],
        }),
      });
    }

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? DEFAULT_API_THROTTLE,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: ACCESS_LOG_FORMAT },
    });
    if (props.domainName) {
      new ApiMapping(this, 'DomainMapping', { api: this.httpApi, domainName: props.domainName, stage: this.stage });
    }
    if (props.routeThrottles) {
      (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
        props.routeThrottles.map(({ routeKey, rateLimit, burstLimit }) => [
          routeKey,
          { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
        ]),
      );
    }

    Validations.of(this.httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Callers authenticate with the service API key (Authorization: Bearer), checked in each function against ' +
        'the hashed keys table together with the per-key rate limit and balance; the console routes with the JWT ' +
        'authorizer (Cognito access tokens); the $default route is the deliberately public not-found answer.',
    });
  }
}

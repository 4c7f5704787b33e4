/**
 * The customer console in AWS (docs/console.md): the built single-page app in a private bucket, served by its own
 * CloudFront distribution under `/console/`, with `/api/*` on the same distribution going to the HTTP API,
 * so the SPA calls the API on its own origin (config.json's `apiBase: ""`) and needs no CORS. The app is
 * built at synthesis like the Lambda bundles (asset bundling, skipped for stacks not being deployed), by
 * lib/ship/console/build.ts; `config.json` beside its index.html tells it the user pool and client.
 */
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { AssetHashType, Aws, DockerImage, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Bucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { ISource } from 'aws-cdk-lib/aws-s3-deployment';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { assetBucketObjectsFinding, wildcardResourceFinding } from './nag-findings.js';
import { awaitInChild } from './await-in-child.js';
import { PRIVATE_BUCKET } from './private-bucket.js';
import { requireOriginMtls } from './origin-mtls.js';
import type { EdgeAttachment } from './service-domains.js';
import {
  aliasRecords,
  apiOrigin as serviceApiOrigin,
  edgeCertificate,
  hostedZone,
  MINIMUM_VIEWER_TLS,
} from './service-domains.js';

/** Where the app lives on the distribution and in the bucket (the local gateway serves it at the same path). */
export const CONSOLE_PATH = '/console/';
/** The SPA's sources; lib/ship/console/build.ts builds them. */
export const CONSOLE_SOURCE_DIR = join(REPOSITORY_ROOT, 'lib', 'ship', 'console');
/** Exports `buildConsole(): Promise<string>`, the directory of the built SPA (index.html and assets/). */
export const CONSOLE_BUILD_MODULE = join(CONSOLE_SOURCE_DIR, 'build.ts');

/**
 * The SPA as a deployment source, built at synthesis by lib/ship/console/build.ts (`buildConsole()`, cached by
 * the hash of its sources): CDK's local asset bundling, as lambda-code.ts copies in the functions' bundles,
 * the build run in a child process (await-in-child.ts). A stack excluded from bundling (`cdk deploy <other
 * stack>`, or the tests' `aws:cdk:bundling-stacks: []`) skips it.
 */
export function builtConsole(buildModule: string = CONSOLE_BUILD_MODULE): ISource {
  return Source.asset(CONSOLE_SOURCE_DIR, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local build either succeeds or throws (no Docker fallback).
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-alpine'),
      local: {
        tryBundle(outputDir: string): boolean {
          cpSync(buildConsoleSync(buildModule), outputDir, { recursive: true });
          return true;
        },
      },
    },
  });
}

/** `await buildConsole()` of the build module (an ES module in this repository) in a child process: its directory. */
export function buildConsoleSync(buildModule: string = CONSOLE_BUILD_MODULE): string {
  if (!existsSync(buildModule)) throw new Error(`${buildModule} is missing: cannot build the console`);
  const dir = awaitInChild<string>(buildModule, 'buildConsole');
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`buildConsole() returned ${dir}, which has no index.html`);
  return dir;
}

/**
 * Viewer requests of the site (not of `/api/*`): `/` and `/console` are redirected to `/console/` (a redirect,
 * not a rewrite, so the page's relative URLs resolve under /console/), and `/console/` is its index.html.
 * The app routes with the URL's hash, so no other path needs one.
 */
export const CONSOLE_VIEWER_REQUEST_CODE = `function handler(event) {
  var request = event.request;
  if (request.uri === '/' || request.uri === '${CONSOLE_PATH.slice(0, -1)}') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${CONSOLE_PATH}' } } };
  }
  if (request.uri === '${CONSOLE_PATH}') request.uri = '${CONSOLE_PATH}index.html';
  return request;
}
`;

export interface ConsoleSiteProps {
  readonly prefix: string;
  /** The built SPA (index.html and assets/): builtConsole(), or any directory source in tests. */
  readonly site: ISource;
  /** Served under `/api/*`. */
  readonly httpApi: IHttpApi;
  readonly userPool: IUserPool;
  readonly client: IUserPoolClient;
  /** Where CloudFront writes its standard logs (the stateful stack's access-log bucket). */
  readonly logBucket: IBucket;
  /** `console.<apex>`, the web ACL, and the API through its origin domain (service-domains.ts). */
  readonly edge?: EdgeAttachment;
}

export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly deployment: BucketDeployment;
  /** `https://<distribution domain>/console/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    // Only build output, put back by every deploy: deleted with its stack (the deployment empties it first).
    this.bucket = new Bucket(this, 'Bucket', {
      ...PRIVATE_BUCKET,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Holds only the public build of the console, written by the deployment and read only by CloudFront through ' +
        'Origin Access Control: every read is in the distribution’s standard logs.',
    });

    const viewerRequest = new CloudFrontFunction(this, 'ViewerRequest', {
      comment: `${props.prefix}: /, /console to /console/; /console/ to its index.html`,
      code: FunctionCode.fromInline(CONSOLE_VIEWER_REQUEST_CODE),
      runtime: FunctionRuntime.JS_2_0,
    });
    // One origin for /api/* and /docs: both are the HTTP API, through its custom domain when there is one (the
    // execute-api endpoint is then disabled), else `https://<api id>.execute-api.<region>.amazonaws.com`.
    const apiDomain = props.edge
      ? props.edge.domains.apiOrigin
      : Fn.select(2, Fn.split('/', props.httpApi.apiEndpoint));
    const apiOrigin = props.edge
      ? serviceApiOrigin(props.edge.domains)
      : new HttpOrigin(apiDomain, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${props.prefix} customer console`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // The objects say `no-cache` (below): CloudFront keeps them its minimum TTL (1 s) and browsers revalidate.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        functionAssociations: [{ function: viewerRequest, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        // The API as callers reach it directly: nothing cached, every method, the viewer's headers (Authorization
        // among them: with caching disabled AllViewerExceptHostHeader forwards it) and query strings; not the
        // Host header, which must stay API Gateway's own.
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        },
        // The API reference page, on the origin that serves its renderer under /console/docs/ (functions/http/get-docs.ts).
        '/docs': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        },
      },
      // No errorResponses: they apply to every behavior and would turn the API's 403/404 envelopes into pages.
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: props.logBucket,
      logFilePrefix: 'cloudfront/console/',
      ...(props.edge && {
        domainNames: [props.edge.domains.console],
        certificate: edgeCertificate(this, props.edge),
        minimumProtocolVersion: MINIMUM_VIEWER_TLS,
        webAclId: props.edge.webAclArn,
      }),
    });
    if (props.edge) {
      requireOriginMtls(this.distribution, apiDomain, props.edge.domains.originClientCertificateArn);
      aliasRecords(
        this,
        'Console',
        hostedZone(this, props.edge.domains),
        props.edge.domains.console,
        this.distribution,
      );
    }
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'The console serves customers worldwide, as the API does; sign-in guards what it shows, not geography.',
    });
    if (!props.edge) {
      Validations.of(this.distribution).acknowledge(
        {
          id: 'AwsSolutions-CFR2',
          reason:
            'No domains (context domains), so no edge stack and no web ACL: /api/* is the same API callers reach ' +
            'directly (its stage throttling, per-key limits and the JWT authorizer apply).',
        },
        {
          id: 'AwsSolutions-CFR4',
          reason:
            'No custom domain (no context domains): on the default *.cloudfront.net certificate CloudFront fixes the ' +
            'viewer TLS policy itself; with domains it is TLSv1.2_2021.',
        },
      );
    }

    const region = Aws.REGION;
    this.deployment = new BucketDeployment(this, 'Deployment', {
      sources: [
        props.site,
        // Read by the SPA beside its index.html (the console contract): same-origin API, this pool and client.
        Source.jsonData('config.json', {
          cognito: {
            endpoint: `https://cognito-idp.${region}.amazonaws.com/`,
            region,
            userPoolId: props.userPool.userPoolId,
            clientId: props.client.userPoolClientId,
          },
          apiBase: '',
        }),
      ],
      destinationBucket: this.bucket,
      destinationKeyPrefix: CONSOLE_PATH.slice(1),
      // Files of an older build are removed; on stack deletion the files too, so the bucket can go.
      prune: true,
      retainOnDelete: false,
      cacheControl: [CacheControl.noCache()],
      memoryLimit: 512,
      logGroup: new LogGroup(this, 'DeploymentLogs', {
        retention: RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    // The deployment's handler (a CDK singleton at the stack's top, under which its role is).
    Validations.of(this.deployment.handlerRole.node.scope as Construct).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'The BucketDeployment handler (CDK-made) runs with AWSLambdaBasicExecutionRole, which only writes its own ' +
          'CloudWatch logs.',
      },
      ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason:
          'CDK’s BucketDeployment grants its handler read of its source assets and read-write of the destination ' +
          '(it syncs and prunes); the actions are CDK’s own grant, on those two buckets only.',
      })),
      {
        id: assetBucketObjectsFinding(this),
        reason:
          'The handler reads the console’s build and config.json from the CDK bootstrap asset bucket, where the ' +
          'deploy uploaded them under content-hashed keys.',
      },
      {
        id: wildcardResourceFinding(this, this.bucket.arnForObjects('*')),
        reason:
          'The handler writes the whole console under console/ and deletes what a new build no longer has (prune); ' +
          'the bucket holds nothing else.',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'The BucketDeployment handler’s runtime is chosen by aws-cdk-lib (the pinned version in package.json) and ' +
          'moves with it; it runs only during deploys.',
      },
    );
    this.url = `https://${props.edge ? props.edge.domains.console : this.distribution.distributionDomainName}${CONSOLE_PATH}`;
  }
}

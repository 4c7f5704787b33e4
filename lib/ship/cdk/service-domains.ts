/**
 * The stable addresses, in the stateful stack so a teardown of the others keeps them (docs/operations.md,
 * "Addresses"): the HTTP API's custom domain `api-origin.<apex>` (mutual TLS: CloudFront only), the API's
 * distribution at `api.<apex>` in front of it, and the alias records. The stateless stack maps its API to the
 * origin domain; a redeployed API is mapped again, and every address stays.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { DomainName, SecurityPolicy } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IHostedZone } from 'aws-cdk-lib/aws-route53';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties, CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { DomainSettings } from './domain-settings.js';
import { requireOriginMtls } from './origin-mtls.js';

/** What every distribution of the service shares: its name's certificate, the web ACL, TLS 1.2 or later. */
export interface EdgeAttachment {
  readonly domains: DomainSettings;
  /** The certificate of the CloudFront names (edge-stack.ts), in us-east-1. */
  readonly certificateArn: string;
  readonly webAclArn: string;
}

/** The edge's certificate, as a construct of `scope`'s stack. */
export function edgeCertificate(scope: Construct, edge: EdgeAttachment): ICertificate {
  return Certificate.fromCertificateArn(scope, 'EdgeCertificate', edge.certificateArn);
}
export const MINIMUM_VIEWER_TLS = SecurityPolicyProtocol.TLS_V1_2_2021;

/** The API origin as every distribution calls it: HTTPS to `api-origin.<apex>`, with the client certificate. */
export function apiOrigin(domains: DomainSettings): HttpOrigin {
  return new HttpOrigin(domains.apiOrigin, {
    protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    readTimeout: Duration.seconds(30),
  });
}

/** `name → distribution` alias records (IPv4 and IPv6) when the stage has a hosted zone. */
export function aliasRecords(
  scope: Construct,
  id: string,
  zone: IHostedZone | undefined,
  name: string,
  d: Distribution,
) {
  if (!zone) return;
  const target = RecordTarget.fromAlias(new CloudFrontTarget(d));
  new ARecord(scope, `${id}A`, { zone, recordName: name, target });
  new AaaaRecord(scope, `${id}Aaaa`, { zone, recordName: name, target });
}

export function hostedZone(scope: Construct, domains: DomainSettings): IHostedZone | undefined {
  const zone = domains.hostedZone;
  return zone && HostedZone.fromHostedZoneAttributes(scope, 'Zone', { hostedZoneId: zone.id, zoneName: zone.name });
}

export interface ServiceDomainsProps {
  readonly prefix: string;
  readonly edge: EdgeAttachment;
  readonly logBucket: IBucket;
}

export class ServiceDomains extends Construct {
  /** The HTTP API's custom domain; the stateless stack maps its API here. */
  readonly apiOriginDomain: DomainName;
  readonly apiDistribution: Distribution;
  readonly zone: IHostedZone | undefined;

  constructor(scope: Construct, id: string, props: ServiceDomainsProps) {
    super(scope, id);
    const { domains } = props.edge;
    this.zone = hostedZone(this, domains);
    const originCertificate = domains.apiOriginCertificateArn
      ? Certificate.fromCertificateArn(this, 'ApiOriginCertificate', domains.apiOriginCertificateArn)
      : new Certificate(this, 'ApiOriginCertificate', {
          domainName: domains.apiOrigin,
          validation: CertificateValidation.fromDns(this.zone),
        });
    const [, , truststoreBucket, ...key] = domains.originTruststoreUri.split('/');
    this.apiOriginDomain = new DomainName(this, 'ApiOriginDomain', {
      domainName: domains.apiOrigin,
      certificate: originCertificate,
      securityPolicy: SecurityPolicy.TLS_1_2,
      // No connection without a client certificate this truststore trusts: CloudFront's (origin-mtls.ts).
      mtls: { bucket: Bucket.fromBucketName(this, 'Truststore', truststoreBucket as string), key: key.join('/') },
    });
    if (this.zone) {
      new ARecord(this, 'ApiOriginA', {
        zone: this.zone,
        recordName: domains.apiOrigin,
        target: RecordTarget.fromAlias(
          new ApiGatewayv2DomainProperties(
            this.apiOriginDomain.regionalDomainName,
            this.apiOriginDomain.regionalHostedZoneId,
          ),
        ),
      });
    }

    this.apiDistribution = new Distribution(this, 'ApiDistribution', {
      comment: `${props.prefix} API`,
      domainNames: [domains.api],
      certificate: edgeCertificate(this, props.edge),
      minimumProtocolVersion: MINIMUM_VIEWER_TLS,
      webAclId: props.edge.webAclArn,
      defaultBehavior: {
        origin: apiOrigin(domains),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // The caller's headers (Authorization among them) and query strings, not the Host header: the origin's.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: props.logBucket,
      logFilePrefix: 'cloudfront/api/',
    });
    requireOriginMtls(this.apiDistribution, domains.apiOrigin, domains.originClientCertificateArn);
    aliasRecords(this, 'Api', this.zone, domains.api, this.apiDistribution);
    Validations.of(this.apiDistribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'The API serves customers worldwide; keys and the web ACL guard it, not geography.',
    });
  }
}

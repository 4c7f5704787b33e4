/**
 * `<prefix>-edge`, in us-east-1 whatever the stage's Region: what CloudFront needs from that Region, the web ACL
 * (WAF's CLOUDFRONT scope lives there) and, unless the stage names one, the certificate of the CloudFront names
 * (CloudFront takes ACM certificates from us-east-1 only). The other stacks read both as weak references.
 */
import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { HostedZone } from 'aws-cdk-lib/aws-route53';
import type { Construct } from 'constructs';
import type { DomainSettings } from './domain-settings.js';
import type { EdgeRateLimits } from './edge-web-acl.js';
import { EdgeWebAcl } from './edge-web-acl.js';

export const EDGE_REGION = 'us-east-1';

export interface EdgeStackProps extends StackProps {
  readonly prefix: string;
  readonly domains: DomainSettings;
  readonly limits: EdgeRateLimits;
}

export class EdgeStack extends Stack {
  readonly webAclArn: string;
  /** The certificate of `api.`, `console.` and `videos.<apex>`. */
  readonly certificateArn: string;
  readonly domains: DomainSettings;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, props);
    this.webAclArn = new EdgeWebAcl(this, 'Edge', { prefix: props.prefix, limits: props.limits }).webAcl.attrArn;
    const { domains } = props;
    this.domains = domains;
    if (domains.cloudFrontCertificateArn) {
      this.certificateArn = domains.cloudFrontCertificateArn;
    } else {
      const zone = domains.hostedZone as NonNullable<DomainSettings['hostedZone']>;
      this.certificateArn = new Certificate(this, 'CloudFrontCertificate', {
        domainName: domains.api,
        subjectAlternativeNames: [domains.console, domains.videos],
        validation: CertificateValidation.fromDns(
          HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: zone.id, zoneName: zone.name }),
        ),
      }).certificateArn;
    }
    new CfnOutput(this, 'WebAclArn', { value: this.webAclArn });
  }
}

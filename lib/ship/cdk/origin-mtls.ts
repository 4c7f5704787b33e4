/**
 * CloudFront shows the API origin a client certificate ("Mutual TLS (origin) with CloudFront", CloudFront guide),
 * and the origin's custom domain accepts no connection without one its truststore trusts: only the service's
 * distributions reach the HTTP API, so nothing bypasses their web ACL (docs/security.md, "The edge").
 */
import { Stack } from 'aws-cdk-lib';
import type { CfnDistribution, Distribution } from 'aws-cdk-lib/aws-cloudfront';

/** Sets OriginMtlsConfig on the distribution's origin whose domain is `originDomain` (the L2 has no prop for it). */
export function requireOriginMtls(distribution: Distribution, originDomain: string, clientCertificateArn: string) {
  const cfn = distribution.node.defaultChild as CfnDistribution;
  const config = Stack.of(distribution).resolve(cfn.distributionConfig) as { origins: { domainName: unknown }[] };
  const index = config.origins.findIndex((origin) => origin.domainName === originDomain);
  if (index < 0) throw new Error(`${distribution.node.path} has no origin ${originDomain}`);
  cfn.addPropertyOverride(`DistributionConfig.Origins.${index}.CustomOriginConfig.OriginMtlsConfig`, {
    ClientCertificateArn: clientCertificateArn,
  });
}

/**
 * The service's stable addresses (context `domains`, per stage in cdk.json's `stages`): `api.<apex>`,
 * `console.<apex>` and `videos.<apex>` on CloudFront, and `api-origin.<apex>`, the HTTP API's own custom domain,
 * which only CloudFront can call (mutual TLS). Certificates are ACM's: existing ones by ARN, or made here and
 * validated by DNS in the hosted zone. docs/operations.md, "Addresses".
 */
import { SetupError } from '../setup-error.js';

export const DOMAINS_CONTEXT = 'domains';

export interface DomainSettings {
  readonly apex: string;
  readonly api: string;
  readonly console: string;
  readonly videos: string;
  /** The HTTP API's regional custom domain: CloudFront's origin for the API (never given to callers). */
  readonly apiOrigin: string;
  /** The Route 53 zone of `apex`: DNS-validated certificates and alias records are made in it. */
  readonly hostedZone?: { readonly id: string; readonly name: string };
  /** An ACM certificate in us-east-1 for the three CloudFront names; unset: made, validated in the hosted zone. */
  readonly cloudFrontCertificateArn?: string;
  /** An ACM certificate in the stage's Region for `apiOrigin`; unset: made, validated in the hosted zone. */
  readonly apiOriginCertificateArn?: string;
  /** The client certificate CloudFront shows `apiOrigin` (ACM, us-east-1): origin mutual TLS. */
  readonly originClientCertificateArn: string;
  /** `s3://bucket/key` of the CA bundle `apiOrigin` trusts: the issuer of that client certificate. */
  readonly originTruststoreUri: string;
}

const ACM_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]{36}$/;

/** The settings from context, checked; undefined when the stage names no domain. */
export function domainSettings(value: unknown): DomainSettings | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const raw = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
  const where = `context ${DOMAINS_CONTEXT}`;
  const text = (key: string) => (typeof raw[key] === 'string' && raw[key] !== '' ? (raw[key] as string) : undefined);
  const apex = text('apex');
  if (!apex || !/^([a-z0-9-]+\.)+[a-z]{2,}$/.test(apex)) throw new SetupError(`${where}.apex must be a domain name`);
  const arn = (key: string, region?: string) => {
    const given = text(key);
    if (given === undefined) return undefined;
    if (!ACM_ARN.test(given) || (region && given.split(':')[3] !== region)) {
      throw new SetupError(`${where}.${key} must be an ACM certificate ARN${region ? ` in ${region}` : ''}`);
    }
    return given;
  };
  const zoneId = text('hostedZoneId');
  const hostedZone = zoneId ? { id: zoneId, name: text('hostedZoneName') ?? apex } : undefined;
  const cloudFrontCertificateArn = arn('cloudFrontCertificateArn', 'us-east-1');
  const apiOriginCertificateArn = arn('apiOriginCertificateArn');
  if (!hostedZone && (!cloudFrontCertificateArn || !apiOriginCertificateArn)) {
    throw new SetupError(
      `${where}: give cloudFrontCertificateArn and apiOriginCertificateArn, or hostedZoneId to make them by DNS validation`,
    );
  }
  const originClientCertificateArn = arn('originClientCertificateArn', 'us-east-1');
  const originTruststoreUri = text('originTruststoreUri');
  if (!originClientCertificateArn || !originTruststoreUri?.startsWith('s3://')) {
    throw new SetupError(
      `${where}: originClientCertificateArn (ACM, us-east-1) and originTruststoreUri (s3://…) are required: ` +
        'only CloudFront may call the API origin (docs/security.md, "The edge")',
    );
  }
  return {
    apex,
    api: `api.${apex}`,
    console: `console.${apex}`,
    videos: `videos.${apex}`,
    apiOrigin: `api-origin.${apex}`,
    ...(hostedZone && { hostedZone }),
    ...(cloudFrontCertificateArn && { cloudFrontCertificateArn }),
    ...(apiOriginCertificateArn && { apiOriginCertificateArn }),
    originClientCertificateArn,
    originTruststoreUri,
  };
}

/**
 * Video downloads: a CloudFront distribution in front of the (private) video bucket, reading it through
 * Origin Access Control, and serving only URLs signed with a key of its trusted key group. The service
 * signs 24 h URLs with the private key kept in Secrets Manager; its public half is given at deploy time.
 *
 * Lives beside the bucket (stateful stack): OAC's grant is a statement in the bucket's own policy, so a
 * distribution in another stack would make the two stacks depend on each other.
 */
import { CfnParameter, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  KeyGroup,
  PriceClass,
  PublicKey,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** CDK context key that may hold the signing public key (PEM); without it, a deploy-time parameter does. */
export const PUBLIC_KEY_CONTEXT = 'cloudFrontPublicKeyPem';
/** The CloudFormation parameter asked for when the context value is absent. */
export const PUBLIC_KEY_PARAMETER = 'CloudFrontPublicKeyPem';

export interface VideoDeliveryProps {
  readonly prefix: string;
  readonly videoBucket: IBucket;
  /** Where CloudFront writes its standard (access) logs. */
  readonly logBucket: IBucket;
  /** Holds the private key matching the public key; read by the functions that sign URLs. */
  readonly privateKey: ISecret;
}

export class VideoDelivery extends Construct {
  readonly distribution: Distribution;
  readonly publicKey: PublicKey;
  readonly privateKey: ISecret;

  constructor(scope: Construct, id: string, props: VideoDeliveryProps) {
    super(scope, id);
    this.privateKey = props.privateKey;

    this.publicKey = new PublicKey(this, 'SigningPublicKey', {
      comment: `${props.prefix}: signs video download URLs`,
      encodedKey: signingPublicKeyPem(this),
    });
    const keyGroup = new KeyGroup(this, 'SigningKeyGroup', {
      comment: `${props.prefix}: keys trusted to sign video download URLs`,
      items: [this.publicKey],
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${props.prefix} video downloads`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(props.videoBucket),
        trustedKeyGroups: [keyGroup],
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        // MP4 is already compressed.
        compress: false,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: props.logBucket,
      logFilePrefix: 'cloudfront/',
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'No custom domain yet: on the default *.cloudfront.net certificate CloudFront fixes the viewer TLS policy ' +
          'itself. With a custom domain and ACM certificate, set minimumProtocolVersion TLSv1.2_2021.',
      },
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Videos are sold worldwide; every URL is signed and short-lived, so no geo restriction.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Only signed URLs are served (trusted key group) from a private origin; unsigned requests are refused at ' +
          'the edge for free. A WAF web ACL can be added if abuse appears.',
      },
    );
  }
}

/**
 * The public key, from CDK context when given (`-c cloudFrontPublicKeyPem=...`); otherwise a parameter
 * without a default, so synthesis works offline and `cdk deploy --parameters CloudFrontPublicKeyPem=...`
 * is required on the first deploy (later deploys keep the previous value).
 */
function signingPublicKeyPem(scope: Construct): string {
  const fromContext: unknown = scope.node.tryGetContext(PUBLIC_KEY_CONTEXT);
  if (typeof fromContext === 'string' && fromContext.trim() !== '') return fromContext;
  return new CfnParameter(Stack.of(scope), PUBLIC_KEY_PARAMETER, {
    type: 'String',
    description:
      'PEM-encoded RSA public key (-----BEGIN PUBLIC KEY-----...) of the key pair that signs video URLs; its ' +
      'private key goes in the <prefix>/cloudfront-private-key secret.',
  }).valueAsString;
}

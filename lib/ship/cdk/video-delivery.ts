/**
 * Video downloads: a CloudFront distribution in front of the (private) video bucket, reading it through
 * Origin Access Control and serving only URLs signed with a key of its trusted key group. The keys are
 * configuration (cdk.json), so a plain `cdk deploy` keeps them and a rotation is a config change; see
 * docs/operations.md, "Deploy to AWS". Lives beside the bucket: OAC's grant is a statement in the bucket's own policy.
 */
import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CfnOutput, CfnParameter, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
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
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { REPOSITORY_ROOT } from '../repository-root.js';
import type { EdgeAttachment } from './service-domains.js';
import { aliasRecords, edgeCertificate, hostedZone, MINIMUM_VIEWER_TLS } from './service-domains.js';
import { SetupError } from '../setup-error.js';

/**
 * CDK context key (cdk.json), per deployment prefix: the public keys CloudFront trusts, by id, and the id
 * the service signs with: `{ "vgs": { "active": "k1", "publicKeys": { "k1": "keys/vgs-k1.pub.pem" } } }`.
 */
export const SIGNING_KEYS_CONTEXT = 'cloudFrontSigningKeys';
/** Stands in for the keys when none are configured: synthesis works (tests, sam local), a deploy stops here. */
export const MISSING_KEYS_PARAMETER = 'CloudFrontSigningKeyNotConfigured';
/** CloudFront: "you can have up to five public keys in a key group" (Developer Guide, trusted signers). */
export const MAX_SIGNING_KEYS = 5;

export interface SigningKeys {
  /** The key the functions sign with: one of `publicKeys`. */
  readonly active: string;
  /** Key id → PEM public key. An id's key never changes (CloudFront public keys are immutable). */
  readonly publicKeys: Readonly<Record<string, string>>;
}

/**
 * The prefix's signing keys from context, each PEM read (a path is relative to the repository root) and
 * checked; undefined when the prefix has none. Every mistake is a synthesis error naming the fix.
 */
export function signingKeysFromContext(value: unknown, prefix: string): SigningKeys | undefined {
  const all: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  const where = `context ${SIGNING_KEYS_CONTEXT}.${prefix}`;
  const entry = (all as Record<string, unknown> | undefined)?.[prefix] as
    { active?: unknown; publicKeys?: Record<string, unknown> } | undefined;
  if (entry === undefined) return undefined;
  const ids = Object.keys(entry.publicKeys ?? {});
  if (ids.length === 0 || ids.length > MAX_SIGNING_KEYS) {
    throw new SetupError(`${where}.publicKeys must hold 1 to ${MAX_SIGNING_KEYS} keys (a key group's limit)`);
  }
  for (const id of ids) {
    // Ids become construct ids and output names: letters and digits only.
    if (!/^[A-Za-z0-9]{1,20}$/.test(id))
      throw new SetupError(`${where}: key id "${id}" must be 1-20 letters or digits`);
  }
  if (typeof entry.active !== 'string' || !ids.includes(entry.active)) {
    throw new SetupError(`${where}.active must name one of its publicKeys (${ids.join(', ')})`);
  }
  const publicKeys = Object.fromEntries(
    ids.map((id) => [id, publicKeyPem(`${where}.publicKeys.${id}`, entry.publicKeys?.[id])]),
  );
  return { active: entry.active, publicKeys };
}

/**
 * The key in canonical PEM, so whitespace in the file never changes the template (a changed EncodedKey is
 * refused by CloudFront). RSA 2048 only: CloudFront also takes ECDSA P-256, but the signer signs with RSA.
 */
function publicKeyPem(where: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new SetupError(`${where}: a PEM file path or PEM text`);
  const file = resolve(REPOSITORY_ROOT, value);
  if (!value.includes('-----BEGIN') && !existsSync(file)) {
    throw new SetupError(
      `${where}: ${file} does not exist: make it from the private key with ` +
        `\`openssl rsa -in <private key> -pubout -out ${value}\` and commit it (docs/operations.md, "First deploy")`,
    );
  }
  const text = value.includes('-----BEGIN') ? value : readFileSync(file, 'utf8');
  if (text.includes('PRIVATE KEY-----')) {
    throw new SetupError(`${where} is a private key: only its public half (openssl rsa -pubout) belongs in the config`);
  }
  let key: ReturnType<typeof createPublicKey>;
  try {
    key = createPublicKey(text);
  } catch {
    throw new SetupError(`${where}: not a PEM public key (make one with openssl rsa -pubout)`);
  }
  if (key.asymmetricKeyType !== 'rsa' || key.asymmetricKeyDetails?.modulusLength !== 2048) {
    throw new SetupError(`${where}: must be an RSA 2048-bit public key`);
  }
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

export interface VideoDeliveryProps {
  readonly prefix: string;
  readonly videoBucket: IBucket;
  /** Where CloudFront writes its standard (access) logs. */
  readonly logBucket: IBucket;
  /** Undefined: none configured; the stack then cannot be deployed (see MISSING_KEYS_PARAMETER). */
  readonly signingKeys: SigningKeys | undefined;
  /** The customer-managed key of the service's secrets (stateful-resources.ts). */
  readonly secretsKey?: IKey;
  /** `videos.<apex>`, its certificate and the web ACL (service-domains.ts); unset: the cloudfront.net name. */
  readonly edge?: EdgeAttachment;
}

export interface SigningKey {
  readonly id: string;
  readonly publicKey: PublicKey;
  /** Holds the key's private half (PEM), put there by the operator; read by the functions that sign. */
  readonly privateKey: Secret;
}

export class VideoDelivery extends Construct {
  readonly distribution: Distribution;
  /** The name signed URLs use: `videos.<apex>`, or the distribution's own. */
  readonly domainName: string;
  /** Every trusted key, in config order. */
  readonly signingKeys: readonly SigningKey[];
  /** The active key: its id is the CloudFront key pair id the functions sign with. */
  readonly publicKey: PublicKey;
  readonly privateKey: Secret;

  constructor(scope: Construct, id: string, props: VideoDeliveryProps) {
    super(scope, id);
    const configured = props.signingKeys ?? missingKeys(this, props.prefix);

    // Construct ids come from key ids: a new key is a new resource, so no key's EncodedKey ever changes in
    // place (CloudFront refuses that; the aws-cloudfront README says to change the construct id instead).
    this.signingKeys = Object.entries(configured.publicKeys).map(([keyId, pem]) => {
      const privateKey = new Secret(this, `SigningKey${keyId}PrivateKey`, {
        description: `${props.prefix}: PEM private key of CloudFront signing key ${keyId}. Set it: aws secretsmanager put-secret-value.`,
        // Useless once its public key is gone (the key removed from the config, or the stack deleted).
        removalPolicy: RemovalPolicy.DESTROY,
        ...(props.secretsKey && { encryptionKey: props.secretsKey }),
      });
      Validations.of(privateKey).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'It must match a public key of the CloudFront key group; rotation is a new key in the config, then a switch ' +
          '(README, Deploy to AWS), not a Secrets Manager rotation.',
      });
      const publicKey = new PublicKey(this, `SigningKey${keyId}`, {
        comment: `${props.prefix}: signing key ${keyId} for video download URLs`,
        encodedKey: pem,
      });
      return { id: keyId, publicKey, privateKey };
    });
    const active = this.signingKeys.find((key) => key.id === configured.active) as SigningKey;
    this.publicKey = active.publicKey;
    this.privateKey = active.privateKey;
    const keyGroup = new KeyGroup(this, 'SigningKeyGroup', {
      comment: `${props.prefix}: keys trusted to sign video download URLs`,
      items: this.signingKeys.map((key) => key.publicKey),
    });
    for (const key of this.signingKeys) {
      // Where to put each key's private half (before making it the active one).
      new CfnOutput(Stack.of(this), `SigningKey${key.id}PrivateKeySecretArn`, { value: key.privateKey.secretArn });
    }

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
      ...(props.edge && {
        domainNames: [props.edge.domains.videos],
        certificate: edgeCertificate(this, props.edge),
        minimumProtocolVersion: MINIMUM_VIEWER_TLS,
        webAclId: props.edge.webAclArn,
      }),
    });
    this.domainName = props.edge ? props.edge.domains.videos : this.distribution.distributionDomainName;
    if (props.edge)
      aliasRecords(this, 'Videos', hostedZone(this, props.edge.domains), props.edge.domains.videos, this.distribution);
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'Videos are sold worldwide; every URL is signed and short-lived, so no geo restriction.',
    });
    if (!props.edge) {
      Validations.of(this.distribution).acknowledge(
        {
          id: 'AwsSolutions-CFR4',
          reason:
            'No custom domain (no context domains): on the default *.cloudfront.net certificate CloudFront fixes the ' +
            'viewer TLS policy itself; with domains it is TLSv1.2_2021 (service-domains.ts).',
        },
        {
          id: 'AwsSolutions-CFR2',
          reason:
            'No domains, so no edge stack and no web ACL: only signed URLs are served (trusted key group) from a ' +
            'private origin, unsigned requests refused at the edge for free.',
        },
      );
    }
  }
}

/**
 * No keys configured: one key whose PEM is a parameter no value can satisfy, so CloudFormation refuses the
 * deploy before creating anything (a rollback would leave retained tables behind), naming the fix.
 */
function missingKeys(scope: Construct, prefix: string): SigningKeys {
  const fix = `add ${SIGNING_KEYS_CONTEXT}.${prefix} to cdk.json (README, "Deploy to AWS")`;
  const parameter = new CfnParameter(Stack.of(scope), MISSING_KEYS_PARAMETER, {
    type: 'String',
    description: `No CloudFront signing key is configured for prefix "${prefix}": ${fix}. No value is accepted here.`,
    minLength: 1,
    allowedPattern: '^$',
    constraintDescription: fix,
  });
  return { active: 'Missing', publicKeys: { Missing: parameter.valueAsString } };
}

/**
 * What every bucket of the service has, whatever it holds: no public access (CloudFront reads through Origin
 * Access Control), requests over TLS 1.2 or later only, S3-managed encryption. Each bucket adds its own
 * ownership, versioning, lifecycle and removal policy.
 */
import { BlockPublicAccess, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import type { BucketProps } from 'aws-cdk-lib/aws-s3';

export const PRIVATE_BUCKET = {
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  encryption: BucketEncryption.S3_MANAGED,
} as const satisfies BucketProps;

/**
 * cdk-nag (v3) acknowledges findings by exact id, e.g. `AwsSolutions-IAM5[Resource::<arn>]`, with the ARN
 * flattened the way cdk-nag prints it (`<AWS::Region>`, `<Logical.Arn>`). This renders that id for an ARN
 * built here, so a wildcard grant and its written reason are declared together. Only for ARNs made of
 * strings and pseudo parameters or same-stack attributes: a cross-stack reference is rewritten at synthesis.
 */
import { DefaultStackSynthesizer, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export function wildcardResourceFinding(scope: IConstruct, arn: string): string {
  return `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(arn))}]`;
}

/**
 * The finding of a grant on every object of the bootstrap's file-asset bucket (what a BucketDeployment's
 * handler reads its sources from), as the default synthesizer names that bucket.
 */
export function assetBucketObjectsFinding(scope: IConstruct): string {
  const qualifier = String(
    scope.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER,
  );
  // The stack's partition, account and Region: pseudo parameters, or literals in a stack bound to a stage (stages.ts).
  const stack = Stack.of(scope);
  const bucket = DefaultStackSynthesizer.DEFAULT_FILE_ASSETS_BUCKET_NAME.replace('${Qualifier}', qualifier)
    .replace('${AWS::AccountId}', stack.account)
    .replace('${AWS::Region}', stack.region);
  return wildcardResourceFinding(scope, `arn:${stack.partition}:s3:::${bucket}/*`);
}

function flatten(node: unknown): string {
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (node && typeof node === 'object') {
    const fn = node as Record<string, unknown>;
    if (Array.isArray(fn['Fn::Join'])) {
      const [delimiter, items] = fn['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (Array.isArray(fn['Fn::GetAtt'])) {
      const [resource, attribute] = fn['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if ('Ref' in fn) return `<${flatten(fn['Ref'])}>`;
  }
  return JSON.stringify(node);
}

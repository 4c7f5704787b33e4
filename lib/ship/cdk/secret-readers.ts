/**
 * Who may read each secret, from the catalog (functions/catalog.ts: each function's `secret` accesses), and
 * the fixed role name each function runs as, so the stateful stack can name them in its secrets' resource
 * policies without a reference back to the stateless stack (docs/security.md, "Secrets").
 */
import { Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { accessesOf, CATALOG } from '../../../functions/catalog.js';

/** The role a function runs as: `<prefix>-<function id>-fn` (IAM allows 64 characters). */
export function functionRoleName(prefix: string, fnId: string): string {
  const name = `${prefix}-${fnId}-fn`;
  if (name.length > 64) throw new Error(`role name ${name} is longer than IAM's 64 characters`);
  return name;
}

/** Each secret of the catalog (`cloudFrontPrivateKey`, `alipayAppPrivateKey`, a provider) → the functions reading it. */
export function secretReaders(): Readonly<Record<string, readonly string[]>> {
  const readers: Record<string, string[]> = {};
  for (const declaration of CATALOG) {
    for (const access of accessesOf(declaration)) {
      if (access.kind === 'secret') (readers[access.secret] ??= []).push(declaration.id);
    }
  }
  return readers;
}

/**
 * Denies GetSecretValue of `secret` to every principal but the named functions' roles: a grant elsewhere in the
 * account (an admin's `*`, a future function's mistake) still cannot read it. Writes (put-secret-value, the
 * rotations of docs/runbook.md) are not denied.
 */
export function restrictReads(secret: ISecret, prefix: string, fnIds: readonly string[]): void {
  const stack = Stack.of(secret);
  const roles = fnIds.map(
    (fnId) => `arn:${stack.partition}:iam::${stack.account}:role/${functionRoleName(prefix, fnId)}`,
  );
  secret.addToResourcePolicy(
    new PolicyStatement({
      sid: 'OnlyItsFunctionsRead',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['secretsmanager:GetSecretValue'],
      resources: ['*'],
      conditions: roles.length > 0 ? { StringNotEquals: { 'aws:PrincipalArn': roles } } : {},
    }),
  );
}

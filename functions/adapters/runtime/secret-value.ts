/**
 * Secrets (upstream API keys, the CloudFront signing key, the Alipay key) are read from Secrets Manager and kept
 * for a few minutes in Powertools Parameters' cache, so a rotated value (docs/runbook.md, "Rotating secrets")
 * reaches warm functions within SECRET_MAX_AGE_SECONDS; a failed read is not cached, so the next call tries
 * again. The client is made on the first read, not at import. Reads at once before the first answer each call
 * Secrets Manager (Parameters keeps values, not reads in flight): a few calls at a cold start at most.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';

/** Five minutes (Parameters' default is 5 s): one read per warm function per 5 minutes, a rotation seen as soon. */
export const SECRET_MAX_AGE_SECONDS = 5 * 60;

export function cachedSecret(secretId: string): () => Promise<string> {
  return async () => {
    const value = await getSecret(secretId, { maxAge: SECRET_MAX_AGE_SECONDS });
    if (typeof value !== 'string') throw new Error(`secret ${secretId} has no string value`);
    return value;
  };
}

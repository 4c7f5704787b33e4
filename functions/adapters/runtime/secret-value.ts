/**
 * Secrets (upstream API keys, the CloudFront signing key) are read from Secrets Manager once per cold
 * start and kept, in Powertools Parameters' cache; a failed read is not cached, so the next call tries
 * again. The client is made on the first read, not at import. Reads at once before the first answer each
 * call Secrets Manager (Parameters keeps values, not reads in flight): a few calls at a cold start at most.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';

/** Longer than any execution environment lives: a secret is read once per cold start (Parameters' default is 5 s). */
const KEEP_SECONDS = 365 * 24 * 60 * 60;

export function cachedSecret(secretId: string): () => Promise<string> {
  return async () => {
    const value = await getSecret(secretId, { maxAge: KEEP_SECONDS });
    if (typeof value !== 'string') throw new Error(`secret ${secretId} has no string value`);
    return value;
  };
}

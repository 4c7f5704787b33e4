/**
 * Secrets (upstream API keys, the CloudFront signing key) are read from Secrets Manager once per cold
 * start and kept; a failed read is not cached, so the next call tries again.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

let client: SecretsManagerClient | undefined;
const cache = new Map<string, Promise<string>>();

export function cachedSecret(secretId: string): () => Promise<string> {
  return () => {
    let value = cache.get(secretId);
    if (!value) {
      client ??= new SecretsManagerClient({});
      value = client.send(new GetSecretValueCommand({ SecretId: secretId })).then((answer) => {
        if (!answer.SecretString) throw new Error(`secret ${secretId} has no string value`);
        return answer.SecretString;
      });
      value.catch(() => cache.delete(secretId));
      cache.set(secretId, value);
    }
    return value;
  };
}

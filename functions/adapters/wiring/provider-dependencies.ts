/** Composition root for the upstream providers: one adapter per entry of functions/providers/registry.ts, metered. */
import { PROVIDERS, PROVIDER_NAMES, platformBaseUrl } from '../../providers/registry.js';
import type { ProviderName } from '../../providers/registry.js';
import type { VideoProvider } from '../../core/ports/video-provider.js';
import { providerEnv, readVariable } from '../runtime/config.js';
import { MeteredVideoProvider } from '../upstream/metered-video-provider.js';
import { providerMetrics } from '../runtime/metrics.js';
import { cachedSecret } from '../runtime/secret-value.js';
import { accountKey } from '../upstream/upstream-keys.js';

/** How long a status query waits for the upstream before answering from what it has. */
export const LIVE_QUERY_TIMEOUT_MS = 2_000;
/**
 * Per upstream call of a cancel (a read, the DELETE, maybe a read again): no answer means a 500 "try again",
 * and a DELETE that the upstream applied but we did not hear of leaves the refund to the task's own end (as failed).
 */
export const CANCEL_UPSTREAM_TIMEOUT_MS = 5_000;

/** Upstream adapters by provider name; `requestTimeoutMs` short where a client is waiting. */
export function videoProviders(requestTimeoutMs = 10_000): Record<ProviderName, VideoProvider> {
  const entries = PROVIDER_NAMES.map((name) => {
    const env = providerEnv(name);
    const secretArn = readVariable(env.apiKeySecretArn);
    // The keys from Secrets Manager in AWS; plain where there is no secret (the local stack).
    const plain = secretArn ? undefined : readVariable(env.apiKey);
    const apiKey = accountKey(secretArn ? cachedSecret(secretArn) : () => Promise.resolve(plain as string));
    const platform = readVariable(env.platform);
    const baseUrl = readVariable(env.baseUrl) || platformBaseUrl(name, platform);
    const adapter = PROVIDERS[name].createVideoProvider({ platform, baseUrl, apiKey, requestTimeoutMs });
    return [name, new MeteredVideoProvider(adapter, providerMetrics, name)] as const;
  });
  return Object.fromEntries(entries) as unknown as Record<ProviderName, VideoProvider>;
}

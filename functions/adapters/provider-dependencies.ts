/** Composition root for the upstream providers (Ark first), metered. */
import { ArkVideoProvider } from './ark-video-provider.js';
import { optionalEnv, requireEnv } from './config.js';
import { MeteredVideoProvider } from './metered-video-provider.js';
import { metrics } from './metrics.js';
import { cachedSecret } from './secret-value.js';

/** How long a status query waits for the upstream before answering from what it has. */
export const LIVE_QUERY_TIMEOUT_MS = 2_000;

/** Upstream adapters by provider name; `requestTimeoutMs` short where a client is waiting. */
export function videoProviders(requestTimeoutMs = 10_000) {
  const ark = new ArkVideoProvider({ baseUrl: requireEnv('ARK_BASE_URL'), apiKey: arkApiKey(), requestTimeoutMs });
  return { ark: new MeteredVideoProvider(ark, metrics) };
}

/** The Ark key: from Secrets Manager in AWS (ARK_API_KEY_SECRET_ARN), or plain where there is none (local). */
function arkApiKey(): string | (() => Promise<string>) {
  const secretArn = optionalEnv('ARK_API_KEY_SECRET_ARN', '');
  return secretArn ? cachedSecret(secretArn) : requireEnv('ARK_API_KEY');
}

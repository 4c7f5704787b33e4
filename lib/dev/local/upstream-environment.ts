/**
 * The environment's side of `npm start`'s upstream switch (docs/providers/ark.md), apart so that nothing else reads
 * it: bin/local.ts turns `<PREFIX>_API_KEY`, `_BASE_URL`, `_PLATFORM` into choices for the local stack
 * (upstreams.ts), and tests that start `npm start` as a process strip them first.
 */
import { MissingConfigError, providerEnv, readVariable } from '../../../functions/adapters/runtime/config.js';
import { PROVIDER_NAMES, platformBaseUrl } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import type { UpstreamChoice } from './upstreams.js';

/**
 * `npm start`'s switch, from this process's environment: a provider whose `<PREFIX>_API_KEY` is set gets the
 * real upstream (at `<PREFIX>_BASE_URL`, else its platform's); otherwise its simulator. `<PREFIX>_PLATFORM`
 * picks the platform either way. A bad value throws MissingConfigError naming the variable.
 */
export function upstreamChoicesFromEnvironment(): {
  choices: Record<ProviderName, UpstreamChoice>;
  warnings: string[];
} {
  const warnings: string[] = [];
  const entries = PROVIDER_NAMES.map((provider): [ProviderName, UpstreamChoice] => {
    const env = providerEnv(provider);
    const platform = readVariable(env.platform);
    const baseUrl = readVariable(env.baseUrl);
    if (!process.env[env.apiKey.name]?.trim()) {
      if (baseUrl) warnings.push(`${env.baseUrl.name} is ignored without ${env.apiKey.name}: ${provider} is simulated`);
      return [provider, { kind: 'simulator', platform }];
    }
    if (baseUrl && !/^https?:\/\/[^/\s]+/.test(baseUrl)) {
      throw new MissingConfigError(
        `environment variable ${env.baseUrl.name}: must be an http(s) URL (got "${baseUrl}")`,
      );
    }
    const apiKey = readVariable(env.apiKey);
    return [provider, { kind: 'real', platform, baseUrl: baseUrl || platformBaseUrl(provider, platform), apiKey }];
  });
  return { choices: Object.fromEntries(entries) as Record<ProviderName, UpstreamChoice>, warnings };
}

/**
 * `env` less every provider's variables: for tests that start `npm start` as a process, so a developer's own
 * key in the shell never sends their runs (and costs) to the real upstream.
 */
export function withoutUpstreamVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const names = PROVIDER_NAMES.flatMap((provider) =>
    Object.values(providerEnv(provider)).map((variable) => variable.name),
  );
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));
}

/**
 * Each provider's upstream for the local stack: its simulator (lib/dev/simulators/<name>/, found by the
 * registry's name), or the real one when `npm start` has its key (docs/providers/README.md). The choice comes
 * as an argument, never from the environment here: only `npm start` reads that (upstream-environment.ts), so
 * tests and the bench never pick up a shell's real key.
 */
import { join } from 'node:path';
import { PROVIDERS, PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import type { ProviderName } from '../../../functions/providers/registry.js';
import type { UpstreamEndpoint } from '../../ship/sam-local/handler-environment.js';
import { DEFAULT_ACCOUNT } from '../../../functions/core/ports/upstream-capacity.js';
import { parseAccountKeys } from '../../../functions/adapters/upstream/upstream-keys.js';
import { loadSimulator } from '../simulators/simulator.js';
import type { RunningSimulator } from '../simulators/simulator.js';

/** What runs for one provider: its simulator playing a platform, or the real upstream. */
export type UpstreamChoice =
  { kind: 'simulator'; platform: string } | { kind: 'real'; platform: string; baseUrl: string; apiKey: string };

/**
 * The key a simulator requires for an upstream account: fixed, so sam local's env.json (sam-env.ts) can give
 * it too (the `default` account's).
 */
export function simulatorApiKey(provider: ProviderName, account = DEFAULT_ACCOUNT): string {
  return account === DEFAULT_ACCOUNT ? `local-${provider}-key` : `local-${provider}-key-${account}`;
}

/** An upstream account the local stack sets up for each provider (docs/upstream-capacity.md). */
export interface LocalUpstreamAccount {
  /** The master account. */
  name: string;
  capacity: number;
  /** Its API keys' names (default: one, named as the account); they share its slots. */
  keys?: string[];
  /** The operator's ceiling on its jobs in flight (docs/upstream-capacity.md); absent: none. */
  inflightCeiling?: number;
}

/** One roomy account per simulated provider, as a deployment with one key has (tests narrow it when they need). */
export const DEFAULT_LOCAL_ACCOUNTS: readonly LocalUpstreamAccount[] = [{ name: DEFAULT_ACCOUNT, capacity: 120 }];

/** The handlers' `<PREFIX>_API_KEY`: a plain key for the `default` account alone, else JSON by account. */
function keysVariable(keys: Record<string, string>): string {
  const names = Object.keys(keys);
  return names.length === 1 && names[0] === DEFAULT_ACCOUNT ? (keys[DEFAULT_ACCOUNT] as string) : JSON.stringify(keys);
}

/** One provider's upstream as the local stack runs it; `simulator` only when simulated. */
export interface LocalUpstream extends UpstreamEndpoint {
  provider: ProviderName;
  simulator?: RunningSimulator;
  /** Its upstream accounts, seeded into the accounts table at start. */
  accounts: readonly LocalUpstreamAccount[];
}

/** What `npm start` records of an upstream (.data/local-stack.json): never its key. */
export interface RuntimeUpstream {
  platform: string;
  baseUrl: string;
  simulated: boolean;
}

/** The simulators' timing and limits (Ark's 120 queued per master account by default). */
export interface SimulatorTiming {
  queuedMs?: number;
  runningMs?: number;
  maxQueuedPerAccount?: number;
  maxInflightPerAccount?: number;
}

export interface StartUpstreamsOptions {
  /** Per provider; a provider not named gets its simulator on its default platform. */
  choices?: Partial<Record<ProviderName, UpstreamChoice>>;
  timing?: SimulatorTiming;
  /** The upstream accounts of each simulated provider (a real upstream: its key's one account). */
  accounts?: readonly LocalUpstreamAccount[];
  /** Where simulators keep their jobs; undefined: in memory. */
  dataDir?: string;
}

export interface Upstreams {
  byProvider: Record<ProviderName, LocalUpstream>;
  close(): Promise<void>;
}

export async function startUpstreams(options: StartUpstreamsOptions = {}): Promise<Upstreams> {
  const started: LocalUpstream[] = [];
  const close = async () => {
    await Promise.all(started.map((upstream) => upstream.simulator?.close()));
  };
  try {
    for (const provider of PROVIDER_NAMES) {
      const choice = options.choices?.[provider] ?? {
        kind: 'simulator',
        platform: PROVIDERS[provider].defaultPlatform,
      };
      if (choice.kind === 'real') {
        // Its key may name several accounts (JSON); each gets the provider's defaults (its contract's).
        const defaults = PROVIDERS[provider].accountDefaults;
        const accounts = Object.keys(parseAccountKeys(choice.apiKey)).map((name) => ({ name, ...defaults }));
        started.push({ provider, platform: choice.platform, baseUrl: choice.baseUrl, apiKey: choice.apiKey, accounts });
        continue;
      }
      const { start, stateFile } = await loadSimulator(provider);
      const accounts = options.accounts ?? DEFAULT_LOCAL_ACCOUNTS;
      const keyNames = accounts.flatMap((account) =>
        (account.keys ?? [account.name]).map((key) => [key, account.name]),
      );
      const keys = Object.fromEntries(keyNames.map(([key]) => [key, simulatorApiKey(provider, key as string)]));
      const masterAccounts = Object.fromEntries(keyNames.map(([key, master]) => [keys[key as string], master]));
      const simulator = await start({
        ...options.timing,
        platform: choice.platform,
        apiKeys: Object.values(keys),
        masterAccounts,
        stateFile: options.dataDir && join(options.dataDir, stateFile),
      });
      const apiKey = keysVariable(keys);
      started.push({ provider, platform: choice.platform, baseUrl: simulator.baseUrl, apiKey, simulator, accounts });
    }
  } catch (error) {
    await close();
    throw error;
  }
  const byProvider = Object.fromEntries(started.map((upstream) => [upstream.provider, upstream]));
  return { byProvider: byProvider as Record<ProviderName, LocalUpstream>, close };
}

/** The start message: which upstream a provider's handlers reach. Never the key. */
export function describeUpstream(upstream: LocalUpstream): string {
  const { provider, platform, baseUrl } = upstream;
  return upstream.simulator
    ? `upstream ${provider}: simulator (${platform}) at ${baseUrl}`
    : `upstream ${provider}: real ${PROVIDERS[provider].shortName} (${platform}, ${baseUrl})`;
}

/** What the handlers get: plain values, as the config crosses to the stack's children as JSON. */
export function upstreamEndpoints(
  upstreams: Record<ProviderName, LocalUpstream>,
): Record<ProviderName, UpstreamEndpoint> {
  return mapProviders(upstreams, ({ platform, baseUrl, apiKey }) => ({ platform, baseUrl, apiKey }));
}

export function runtimeUpstreams(
  upstreams: Record<ProviderName, LocalUpstream>,
): Record<ProviderName, RuntimeUpstream> {
  return mapProviders(upstreams, ({ platform, baseUrl, simulator }) => ({
    platform,
    baseUrl,
    simulated: simulator !== undefined,
  }));
}

function mapProviders<T, U>(record: Record<ProviderName, T>, map: (value: T) => U): Record<ProviderName, U> {
  return Object.fromEntries(PROVIDER_NAMES.map((provider) => [provider, map(record[provider])])) as Record<
    ProviderName,
    U
  >;
}

/**
 * A provider's API keys, one per upstream account (docs/upstream-capacity.md), kept in the provider's one secret
 * (or, locally, its `<PREFIX>_API_KEY` variable) as a JSON object `{"<account>": "<key>"}`. A plain string is
 * the key of the account `default`, so a deployment with one key stores it as before.
 */
import { DEFAULT_ACCOUNT } from '../../core/ports/upstream-capacity.js';
import { UpstreamAccountError } from '../../core/upstream-errors.js';

export function parseAccountKeys(raw: string): Record<string, string> {
  const value = raw.trim();
  if (!value.startsWith('{')) return { [DEFAULT_ACCOUNT]: value };
  const parsed: unknown = JSON.parse(value);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('API keys: not a JSON object');
  const keys: Record<string, string> = {};
  for (const [account, key] of Object.entries(parsed)) {
    if (typeof key !== 'string' || key.trim() === '') throw new Error(`API keys: account "${account}" has no key`);
    keys[account] = key.trim();
  }
  return keys;
}

/** The key of an account, from the provider's keys (read each call: a cached secret costs nothing). */
export function accountKey(readKeys: () => Promise<string>): (account: string) => Promise<string> {
  return async (account) => {
    const key = parseAccountKeys(await readKeys())[account];
    if (!key) throw new UpstreamAccountError(`no API key is stored for upstream account "${account}"`);
    return key;
  };
}

/**
 * Checks at submit time that reference and webhook URLs point at public addresses: an IP-literal host is
 * judged directly, a name by resolving it. A name that does not resolve (here) is let through: the
 * upstream fetches references itself, and webhooks are checked again at connect time anyway.
 */
import { InvalidRequestError } from '../../core/api-error.js';
import type { OutboundUrlPolicy } from '../../core/ports/url-policy.js';
import { isIpAddress } from '../../core/public-address.js';
import type { AddressPolicy, Resolver } from './public-address-guard.js';
import { refusalReason, systemResolver, urlHost } from './public-address-guard.js';

const RESOLVE_TIMEOUT_MS = 2_000;

export class DnsOutboundUrlPolicy implements OutboundUrlPolicy {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly resolver: Resolver = systemResolver,
  ) {}

  async assertPublic(urls: readonly { field: string; url: string }[]): Promise<void> {
    const verdicts = await Promise.all(urls.map(async (entry) => ({ ...entry, reason: await this.reason(entry.url) })));
    const refused = verdicts.find((verdict) => verdict.reason !== undefined);
    if (refused) {
      throw new InvalidRequestError(`${refused.field}: ${refused.url} is not a public address (${refused.reason})`);
    }
  }

  private async reason(url: string): Promise<string | undefined> {
    const host = urlHost(new URL(url));
    if (isIpAddress(host)) return refusalReason(host, this.policy);
    if (host === 'localhost' || host.endsWith('.localhost')) return refusalReason('127.0.0.1', this.policy);
    const addresses = await withTimeout(this.resolver(host, 0), RESOLVE_TIMEOUT_MS).catch(() => []);
    for (const { address } of addresses) {
      const reason = refusalReason(address, this.policy);
      if (reason) return reason;
    }
    return undefined;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    timer.unref();
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/**
 * SSRF guard for requests to customer-given URLs (docs/security.md, "URL policy"): `guardedLookup(url, policy)` for
 * node:http(s) refuses a forbidden IP literal at once, resolves a name's every address and refuses the
 * lot if any is forbidden, then hands the checked addresses to the socket (no second resolution, so no
 * DNS rebinding).
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isIpAddress, isLoopbackAddress } from '../../core/public-address.js';

export interface AddressPolicy {
  /** Loopback (127.0.0.0/8, ::1) allowed: the local runtime, so developers can receive on 127.0.0.1. */
  allowLoopback: boolean;
}

export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
  readonly code = 'ERR_FORBIDDEN_ADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
    reason: string,
  ) {
    super(
      host === address
        ? `${address} is not a public address (${reason})`
        : `${host} resolves to ${address}, which is not a public address (${reason})`,
    );
  }
}

/** Resolves a name to all its addresses (the system resolver, as Node's default lookup uses). */
export type Resolver = (hostname: string, family: 0 | 4 | 6) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname, family) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, family, order: 'verbatim' }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** Why the policy refuses `address`, or undefined when it may be connected to. */
export function refusalReason(address: string, policy: AddressPolicy): string | undefined {
  if (policy.allowLoopback && isLoopbackAddress(address)) return undefined;
  const verdict = classifyAddress(address);
  return verdict.forbidden ? verdict.reason : undefined;
}

/** The URL's host without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Throws ForbiddenAddressError when the URL's host is an IP literal the policy refuses. */
export function assertAllowedLiteralHost(url: URL, policy: AddressPolicy): void {
  const host = urlHost(url);
  if (!isIpAddress(host)) return;
  const reason = refusalReason(host, policy);
  if (reason) throw new ForbiddenAddressError(host, host, reason);
}

/** A `lookup` for net/http/https that only ever yields addresses the policy allows. */
export function publicAddressLookup(policy: AddressPolicy, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    const family =
      options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    resolver(hostname, family).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        for (const { address } of addresses) {
          const reason = refusalReason(address, policy);
          if (reason) {
            callback(new ForbiddenAddressError(hostname, address, reason), '', 0);
            return;
          }
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** Checks an IP-literal host now and returns the `lookup` that checks a name at connect time. */
export function guardedLookup(url: URL, policy: AddressPolicy, resolver?: Resolver): LookupFunction {
  assertAllowedLiteralHost(url, policy);
  return publicAddressLookup(policy, resolver);
}

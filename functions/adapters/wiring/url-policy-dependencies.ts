/** Composition root for the check that customer-given URLs point at public addresses. */
import { readEnv } from '../runtime/config.js';
import { DnsOutboundUrlPolicy } from '../outbound/dns-url-policy.js';
import type { AddressPolicy } from '../outbound/public-address-guard.js';

export function outboundAddressPolicy(): AddressPolicy {
  return { allowLoopback: readEnv('allowLoopbackTargets') };
}

export function outboundUrlPolicy() {
  return new DnsOutboundUrlPolicy(outboundAddressPolicy());
}

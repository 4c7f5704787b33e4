/** Composition root for the check that customer-given URLs point at public addresses. */
import { readEnv } from './config.js';
import { DnsOutboundUrlPolicy } from './dns-url-policy.js';
import type { AddressPolicy } from './public-address-guard.js';

export function outboundAddressPolicy(): AddressPolicy {
  return { allowLoopback: readEnv('allowLoopbackTargets') };
}

export function outboundUrlPolicy() {
  return new DnsOutboundUrlPolicy(outboundAddressPolicy());
}

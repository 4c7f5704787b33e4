/** Composition root for the check that customer-given URLs point at public addresses. */
import { MissingConfigError, optionalEnv } from './config.js';
import { DnsOutboundUrlPolicy } from './dns-url-policy.js';
import type { AddressPolicy } from './public-address-guard.js';

/** ALLOW_LOOPBACK_TARGETS=true only in the local runtime: in AWS every non-public range is refused. */
export function outboundAddressPolicy(): AddressPolicy {
  const text = optionalEnv('ALLOW_LOOPBACK_TARGETS', 'false');
  if (text !== 'true' && text !== 'false') {
    throw new MissingConfigError(`environment variable ALLOW_LOOPBACK_TARGETS must be true or false (got "${text}")`);
  }
  return { allowLoopback: text === 'true' };
}

export function outboundUrlPolicy() {
  return new DnsOutboundUrlPolicy(outboundAddressPolicy());
}

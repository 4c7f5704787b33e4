/** Reference and webhook URLs must point at public addresses; the check names the field at fault. */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../functions/core/api-error.js';
import { DnsOutboundUrlPolicy } from '../../functions/adapters/outbound/dns-url-policy.js';
import type { Resolver } from '../../functions/adapters/outbound/public-address-guard.js';

const DNS: Record<string, string[]> = {
  'cdn.example.com': ['93.184.216.34'],
  'internal.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.216.34', '169.254.169.254'],
};
const resolver: Resolver = async (host) => {
  const addresses = DNS[host];
  if (!addresses) throw Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: 4 }));
};

const aws = new DnsOutboundUrlPolicy({ allowLoopback: false }, resolver);
const local = new DnsOutboundUrlPolicy({ allowLoopback: true }, resolver);
const check = (policy: DnsOutboundUrlPolicy, url: string) => policy.assertPublic([{ field: 'image_urls[0]', url }]);

describe('DnsOutboundUrlPolicy', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/a.png',
    'http://[::1]/a.png',
    'http://[fd00:ec2::254]/',
    'http://127.0.0.1:8080/a.png',
    'http://localhost/a.png',
    'https://internal.example.com/a.png',
    'https://mixed.example.com/a.png',
  ])('refuses %s in AWS', async (url) => {
    const refusal = check(aws, url);
    await expect(refusal).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(refusal).rejects.toThrow(/^image_urls\[0\]: .* is not a public address/);
  });

  it.each(['https://cdn.example.com/a.png', 'https://unresolvable.example.org/a.png', 'http://93.184.216.34/a.png'])(
    'accepts %s',
    async (url) => {
      await expect(check(aws, url)).resolves.toBeUndefined();
    },
  );

  it('allows loopback only where the policy says so (the local runtime), never other private ranges', async () => {
    await expect(check(local, 'http://127.0.0.1:9000/hook')).resolves.toBeUndefined();
    await expect(check(local, 'http://localhost:9000/hook')).resolves.toBeUndefined();
    await expect(check(local, 'http://192.168.1.10/hook')).rejects.toThrow(/not a public address/);
  });
});

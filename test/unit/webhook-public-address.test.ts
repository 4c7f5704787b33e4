/**
 * SSRF (docs/security.md, "URL policy"): which addresses a webhook may go to. The table covers every forbidden range
 * at both ends and the IPv6 forms that embed an IPv4 address; the guard tests show a refusal happens in
 * AWS mode (no loopback) for IP-literal hosts and for names, on the addresses the socket would use.
 */
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, isForbiddenAddress, isLoopbackAddress } from '../../functions/core/public-address.js';
import {
  ForbiddenAddressError,
  publicAddressLookup,
  refusalReason,
} from '../../functions/adapters/outbound/public-address-guard.js';
import type { Resolver } from '../../functions/adapters/outbound/public-address-guard.js';
import { HttpWebhookSender } from '../../functions/adapters/outbound/webhook-sender.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** [range, addresses inside it]: each must be refused. */
const FORBIDDEN: [string, string[]][] = [
  ['0.0.0.0/8 "this network"', ['0.0.0.0', '0.255.255.255']],
  ['10.0.0.0/8 private', ['10.0.0.0', '10.1.2.3', '10.255.255.255']],
  ['100.64.0.0/10 CGNAT', ['100.64.0.0', '100.100.100.200', '100.127.255.255']],
  ['127.0.0.0/8 loopback', ['127.0.0.1', '127.255.255.254']],
  ['169.254.0.0/16 link-local', ['169.254.0.1', '169.254.169.254', '169.254.170.2', '169.254.255.255']],
  ['172.16.0.0/12 private', ['172.16.0.0', '172.31.255.255']],
  ['192.0.0.0/24 IETF', ['192.0.0.0', '192.0.0.192', '192.0.0.255']],
  ['192.0.2.0/24 documentation', ['192.0.2.1']],
  ['192.88.99.0/24 6to4 relay', ['192.88.99.1']],
  ['192.168.0.0/16 private', ['192.168.0.0', '192.168.255.255']],
  ['198.18.0.0/15 benchmarking', ['198.18.0.0', '198.19.255.255']],
  ['198.51.100.0/24 documentation', ['198.51.100.7']],
  ['203.0.113.0/24 documentation', ['203.0.113.9']],
  ['224.0.0.0/4 multicast', ['224.0.0.1', '239.255.255.255']],
  ['240.0.0.0/4 reserved', ['240.0.0.1', '255.255.255.254']],
  ['broadcast', ['255.255.255.255']],
  [':: unspecified', ['::', '0:0:0:0:0:0:0:0']],
  ['::1 loopback', ['::1', '0:0:0:0:0:0:0:1']],
  ['::/96 IPv4-compatible', ['::8.8.8.8', '::a00:1']],
  [
    'IPv4-mapped private/loopback/metadata',
    ['::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '::FFFF:192.168.1.1'],
  ],
  ['IPv4-translated private', ['::ffff:0:10.0.0.1']],
  ['NAT64 64:ff9b::/96 embedding forbidden IPv4', ['64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::10.0.0.1']],
  ['local-use NAT64 64:ff9b:1::/48', ['64:ff9b:1::8.8.8.8']],
  ['6to4 2002::/16 embedding forbidden IPv4', ['2002:7f00:1::', '2002:a9fe:a9fe::1', '2002:c0a8:101::']],
  ['100::/64 discard', ['100::1']],
  ['2001::/23 IETF (Teredo)', ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2']],
  ['2001:db8::/32 documentation', ['2001:db8::1']],
  ['3fff::/20 documentation', ['3fff::1']],
  ['fc00::/7 unique local', ['fc00::1', 'fdff:ffff::1']],
  ['AWS metadata IPv6', ['fd00:ec2::254']],
  ['fe80::/10 link-local', ['fe80::1', 'fe80::1%eth0', 'febf::1']],
  ['fec0::/10 site-local', ['fec0::1']],
  ['ff00::/8 multicast', ['ff02::1', 'ff0e::1']],
  ['outside 2000::/3', ['4000::1', '::2:0:0:1']],
  ['not an address', ['example.com', '1.2.3', '1.2.3.4.5', '01.2.3.4', '256.1.1.1', '1::2::3', '']],
];

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.1',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];

describe('isForbiddenAddress', () => {
  describe.each(FORBIDDEN)('%s', (_range, addresses) => {
    it.each(addresses)('refuses %s', (address) => {
      expect(isForbiddenAddress(address)).toBe(true);
    });
  });

  it.each(ALLOWED)('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toEqual({ forbidden: false });
  });

  it('names the range it refused', () => {
    expect(classifyAddress('169.254.169.254')).toEqual({ forbidden: true, reason: 'link-local (cloud metadata)' });
    expect(classifyAddress('::ffff:10.0.0.1')).toEqual({ forbidden: true, reason: 'IPv4-mapped private' });
  });
});

describe('isLoopbackAddress (what the local runtime allows)', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])('%s is loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });
  it.each(['0.0.0.0', '10.0.0.1', '::', '169.254.169.254', '8.8.8.8', 'localhost'])('%s is not', (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
  it('allows loopback only when the policy says so, and nothing else private', () => {
    expect(refusalReason('127.0.0.1', { allowLoopback: true })).toBeUndefined();
    expect(refusalReason('::1', { allowLoopback: true })).toBeUndefined();
    expect(refusalReason('127.0.0.1', { allowLoopback: false })).toBe('loopback');
    expect(refusalReason('10.0.0.1', { allowLoopback: true })).toBe('private');
    expect(refusalReason('169.254.169.254', { allowLoopback: true })).toBe('link-local (cloud metadata)');
  });
});

describe('publicAddressLookup (connect-time check)', () => {
  const resolverFor =
    (answers: Record<string, LookupAddress[]>): Resolver =>
    async (hostname) => {
      const found = answers[hostname];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return found;
    };
  const resolver = resolverFor({
    'public.example': [{ address: '93.184.215.14', family: 4 }],
    'rebind.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ],
    'v6private.example': [{ address: 'fd00:ec2::254', family: 6 }],
  });

  function lookup(hostname: string, all: boolean, allowLoopback = false) {
    return new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
      publicAddressLookup({ allowLoopback }, resolver)(hostname, { all }, (error, address, family) =>
        resolve({ error, address, family }),
      );
    });
  }

  it('hands the socket exactly the addresses it checked', async () => {
    expect(await lookup('public.example', false)).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await lookup('public.example', true)).toMatchObject({
      error: null,
      address: [{ address: '93.184.215.14', family: 4 }],
    });
  });

  it('refuses a name when any of its addresses is forbidden', async () => {
    const { error } = await lookup('rebind.example', true);
    expect(error).toBeInstanceOf(ForbiddenAddressError);
    expect(error?.message).toMatch(/rebind\.example resolves to 169\.254\.169\.254/);
    expect((await lookup('v6private.example', false)).error).toBeInstanceOf(ForbiddenAddressError);
  });

  it('passes resolver errors through', async () => {
    expect((await lookup('nowhere.example', false)).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('the webhook sender in AWS mode (no loopback)', () => {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200).end();
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = (url: string, resolver?: Resolver, allowLoopback = false) =>
    new HttpWebhookSender({ policy: { allowLoopback }, ...(resolver ? { resolver } : {}) }).send({
      url,
      id: 'msg_1',
      timestamp: new Date(),
      body: '{}',
      secrets: [SECRET],
    });

  const literalHosts = FORBIDDEN.filter(([range]) => range !== 'not an address')
    .flatMap(([, addresses]) => addresses)
    .filter((address) => !address.includes('%'));

  it.each(literalHosts)('refuses the IP-literal host %s without connecting', async (address) => {
    const host = address.includes(':') ? `[${address}]` : address;
    const result = await send(`http://${host}:${port}/hook`);
    expect(result).toMatchObject({ kind: 'refused', message: expect.stringMatching(/not a public address/) });
  });

  it('refuses a name that resolves to a forbidden address, at connect time', async () => {
    const result = await send(`http://hooks.example:${port}/hook`, async () => [{ address: '127.0.0.1', family: 4 }]);
    expect(result).toMatchObject({ kind: 'refused', message: expect.stringMatching(/hooks\.example resolves to/) });
  });

  it('refuses localhost and decimal/hex IPv4 spellings the URL parser normalises', async () => {
    expect(await send(`http://localhost:${port}/hook`)).toMatchObject({ kind: 'refused' });
    expect(await send(`http://2130706433:${port}/hook`)).toMatchObject({ kind: 'refused' });
    expect(await send(`http://0x7f.1:${port}/hook`)).toMatchObject({ kind: 'refused' });
    expect(hits).toBe(0);
  });

  it('connects to loopback only when the local runtime allows it', async () => {
    expect(await send(`http://127.0.0.1:${port}/hook`, undefined, true)).toEqual({ kind: 'response', statusCode: 200 });
    expect(hits).toBe(1);
  });
});

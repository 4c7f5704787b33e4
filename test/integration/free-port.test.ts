/**
 * The local stack's port picker: free ports outside the range the kernel hands to other processes' sockets,
 * each reserved so that no other picker (another stack starting at the same time) gets it before it is bound.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { freePort } from '../../lib/local/free-port.js';

const ephemeralStart = (): number => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
};

it('picks ports below the ephemeral range that can be listened on', async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(Math.min(ephemeralStart(), 32_768));
  }
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ports[0], '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});

it('never hands out a port it reserved, though nothing listens on it yet', async () => {
  const lowest = randomInt(20_000, 31_000);
  const range = { lowest, highest: lowest + 9 };
  const picked: number[] = [];
  for (let i = 0; i < 10; i += 1) picked.push(await freePort(range));
  expect(new Set(picked).size).toBe(10);
  // All ten reserved (or held by someone else): the next pick comes from outside the range.
  const next = await freePort(range);
  expect(next < lowest || next > lowest + 9).toBe(true);
});

/**
 * The local stack's port picker: free ports outside the range the kernel hands to other processes' sockets,
 * each reserved so that no other picker (another stack starting at the same time) gets it before it is bound.
 */
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { freePort, RESERVATIONS } from '../../lib/dev/local/free-port.js';

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

it('removes reservations older than five minutes, and only those', async () => {
  // Ports 1 and 2: below any range a picker draws from, so no other picker on the machine holds them.
  const range = { lowest: 20_000, highest: 31_000 };
  await freePort(range);
  const stale = join(RESERVATIONS, '1');
  const fresh = join(RESERVATIONS, '2');
  writeFileSync(stale, '0');
  writeFileSync(fresh, '0');
  const sixMinutesAgo = new Date(Date.now() - 6 * 60_000);
  utimesSync(stale, sixMinutesAgo, sixMinutesAgo);
  try {
    await freePort(range);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  } finally {
    rmSync(stale, { force: true });
    rmSync(fresh, { force: true });
  }
});

/**
 * Ports for the local stack's servers, picked before the process that binds them starts (or kept across
 * restarts). Drawn below the kernel's ephemeral range, where outgoing connections and port-0 listeners take
 * theirs: a port from that range, free at the pick, was taken by another process before our bind (seen in CI).
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Below this, ports are commonly configured for services (3000, 8000, 8080, ...). */
const LOWEST = 20_000;
/** Linux's default start of the ephemeral range; macOS and Windows start at 49152. */
const DEFAULT_EPHEMERAL_START = 32_768;

/** A port no one listens on right now, outside the ephemeral range when the kernel leaves room for it. */
export async function freePort(): Promise<number> {
  const ceiling = Math.min(ephemeralStart(), DEFAULT_EPHEMERAL_START) - 1;
  if (ceiling - LOWEST >= 1_000) {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const port = randomInt(LOWEST, ceiling + 1);
      if ((await tryListen(port)) !== undefined) return port;
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}

/** Binds and releases `port` on 127.0.0.1: the port bound, or undefined when it is taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

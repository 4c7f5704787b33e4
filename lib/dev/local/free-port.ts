/**
 * Ports for the local stack's servers, picked before the process that binds them starts (or kept across
 * restarts). Drawn below the kernel's ephemeral range, where outgoing connections and port-0 listeners take
 * theirs, and reserved for a while by a file that every picker on the machine honours: two stacks starting
 * at once picked the same port in the seconds before either bound it (seen in CI).
 */
import { randomInt } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Below this, ports are commonly configured for services (3000, 8000, 8080, ...). */
const LOWEST = 20_000;
/** Linux's default start of the ephemeral range; macOS and Windows start at 49152. */
const DEFAULT_EPHEMERAL_START = 32_768;
/** Longer than any pick takes to be bound (a Java or Node child starting on a busy machine); after, it is in use. */
const RESERVATION_MS = 5 * 60_000;
export const RESERVATIONS = join(tmpdir(), 'vgs-port-reservations');

/**
 * A port no one listens on right now and no other picker has reserved, from `range` (by default below the
 * ephemeral range, when the kernel leaves room for it); else one the kernel picks.
 */
export async function freePort(range = defaultRange()): Promise<number> {
  if (range) {
    removeStaleReservations();
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const port = randomInt(range.lowest, range.highest + 1);
      if ((await tryListen(port)) !== undefined && reserve(port)) return port;
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

function defaultRange(): { lowest: number; highest: number } | undefined {
  const highest = Math.min(ephemeralStart(), DEFAULT_EPHEMERAL_START) - 1;
  return highest - LOWEST >= 1_000 ? { lowest: LOWEST, highest } : undefined;
}

/** True when this call reserved `port`: no other picker holds a reservation younger than RESERVATION_MS. */
function reserve(port: number): boolean {
  mkdirSync(RESERVATIONS, { recursive: true });
  const file = join(RESERVATIONS, String(port));
  try {
    if (Date.now() - statSync(file).mtimeMs < RESERVATION_MS) return false;
    unlinkSync(file);
  } catch {
    // No reservation, or another picker removed the stale one first: the exclusive create below decides.
  }
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** Reservations past RESERVATION_MS hold nothing: removed, so the folder does not grow with every run. */
function removeStaleReservations(): void {
  let names: string[];
  try {
    names = readdirSync(RESERVATIONS);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      const file = join(RESERVATIONS, name);
      if (Date.now() - statSync(file).mtimeMs >= RESERVATION_MS) unlinkSync(file);
    } catch {
      // Removed by another picker meanwhile.
    }
  }
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

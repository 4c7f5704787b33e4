/**
 * The listening TCP sockets of a set of processes, read from /proc (Linux): a socket's inode in
 * /proc/<pid>/fd, its address in /proc/net/tcp and tcp6.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Listener {
  address: string;
  port: number;
  pid: number;
  command: string;
}

/** `root` and every process below it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it exited meanwhile
    }
    // The command name (field 2) may hold spaces and parentheses; the fields after the last ')' do not.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

export function listenersOf(pids: number[]): Listener[] {
  const owner = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) owner.set(inode, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  const listeners: Listener[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1]!, fields[3], fields[9]!];
      const pid = owner.get(inode);
      if (state !== '0A' || pid === undefined) continue; // 0A: LISTEN
      const [hex, port] = local.split(':') as [string, string];
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').slice(0, 160);
      listeners.push({ address: decodeAddress(hex), port: parseInt(port, 16), pid, command });
    }
  }
  return listeners;
}

/** /proc/net prints an address as 32-bit words, each in host byte order (little-endian here). */
function decodeAddress(hex: string): string {
  const bytes = (hex.match(/.{8}/g) ?? []).flatMap((word) =>
    (word.match(/../g) ?? []).reverse().map((byte) => parseInt(byte, 16)),
  );
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  return groups.join(':');
}

export function isLoopback(address: string): boolean {
  if (/^127\./.test(address)) return true;
  if (address === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(address);
  return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 127;
}

/**
 * The local stack listens on loopback only: every listening TCP socket held by this process or a process it
 * started (DynamoDB Local's JVM, cognito-local, the API and workflow children) is bound to 127.0.0.1 or ::1.
 * Read from /proc (Linux): a socket's inode in /proc/<pid>/fd, its address in /proc/net/tcp and tcp6.
 * Owns its stack: it reads the sockets of processes it started, and the shared stack's are not its children.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBucket, startS3AndSqs } from '../../lib/local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/local-aws.js';
import { startTestStack } from '../support/test-stack.js';
import type { LocalStack } from '../support/test-stack.js';

interface Listener {
  address: string;
  port: number;
  pid: number;
  command: string;
}

let stack: LocalStack | undefined;

beforeAll(async () => {
  stack = await startTestStack();
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

it('binds every server of the local stack to loopback, and nothing else', () => {
  const live = stack!;
  const listeners = listenersOf(processTree(process.pid));
  const expectedPorts = [
    live.baseUrl,
    live.endpoints.dynamodb,
    live.endpoints.s3,
    live.endpoints.sfn,
    live.console.cognito.endpoint,
    ...Object.values(live.endpoints.upstreams).map((upstream) => upstream.baseUrl),
  ].map((url) => Number(new URL(url).port));
  const heldPorts = new Set(listeners.map((listener) => listener.port));
  // The check below means something only if it sees the stack's servers.
  expect(expectedPorts.filter((port) => !heldPorts.has(port))).toEqual([]);
  expect(listeners.filter((listener) => !isLoopback(listener.address))).toEqual([]);
});

it('keeps S3 objects as files across a restart of the local S3 (listening on loopback)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopback-s3-'));
  const client = (endpoint: string) =>
    new S3Client({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true });
  try {
    const first = await startS3AndSqs(dir);
    const writer = client(first.endpoint);
    await createBucket(writer, 'kept');
    await writer.send(new PutObjectCommand({ Bucket: 'kept', Key: 'a.txt', Body: 'still here' }));
    writer.destroy();
    await first.stop();

    const second = await startS3AndSqs(dir);
    const reader = client(second.endpoint);
    try {
      const object = await reader.send(new GetObjectCommand({ Bucket: 'kept', Key: 'a.txt' }));
      expect(await object.Body!.transformToString()).toBe('still here');
      const mine = listenersOf([process.pid]).filter((listener) => listener.port === second.port);
      expect(mine.map((listener) => listener.address)).toEqual(['127.0.0.1']);
    } finally {
      reader.destroy();
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** `root` and every process below it. */
function processTree(root: number): number[] {
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

function listenersOf(pids: number[]): Listener[] {
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

function isLoopback(address: string): boolean {
  if (/^127\./.test(address)) return true;
  if (address === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(address);
  return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 127;
}

/**
 * Section 3, transfer: a generated upstream video (a local HTTP server producing the bytes on the fly,
 * with Content-Length and video/mp4, as a TOS download would) streamed into the local bucket by the
 * TransferVideo step's adapter, beside a plain `Upload` of the same stream, at 100 MiB, 500 MiB and 1 GiB.
 * Each transfer runs in a fresh child process (lib/bench/transfer-process.ts) whose RSS is measured; the
 * S3 emulator (file-backed) and the byte generator live in other processes.
 */
import { CreateBucketCommand, DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { spawnTsx } from './child.js';
import type { TransferJob, TransferOutcome } from './transfer-process.js';

export interface TransferRow extends Omit<TransferOutcome, 'type'> {
  mibPerSecond: number;
}

export interface TransferResult {
  rows: TransferRow[];
  /** HttpToS3VideoTransfer's settings at the time of the run (read from its source). */
  adapter: { partMiB: number; queueSize: number };
}

/** PART_SIZE and QUEUE_SIZE of functions/adapters/s3-video-storage.ts, so the report says what was measured. */
function adapterSettings(): TransferResult['adapter'] {
  const source = readFileSync(join(REPOSITORY_ROOT, 'functions/adapters/s3-video-storage.ts'), 'utf8');
  const part = /const PART_SIZE = ([\d_ *]+);/.exec(source)?.[1] ?? 'NaN';
  const queue = /const QUEUE_SIZE = (\d+);/.exec(source)?.[1] ?? 'NaN';
  const partBytes = part.split('*').reduce((product, factor) => product * Number(factor.trim().replaceAll('_', '')), 1);
  return { partMiB: partBytes / MiB, queueSize: Number(queue) };
}

const MiB = 1024 * 1024;
const CHUNK = randomBytes(MiB);

export function transferSizes(): number[] {
  const text = process.env['BENCH_TRANSFER_MIB'] ?? '100,500,1024';
  return text.split(',').map((part) => Number(part) * MiB);
}

export async function runTransfer(log: (line: string) => void): Promise<TransferResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vgs-bench-s3-'));
  const s3Process = spawnTsx('lib/bench/s3-process.ts', { env: { BENCH_S3_DIR: dir } });
  const generator = createServer((req, res) => {
    const size = Number(/^\/video\/(\d+)\.mp4$/.exec(req.url ?? '')?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(size)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
    if (req.method === 'HEAD') return void res.end();
    let left = size;
    const pump = () => {
      while (left > 0) {
        const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
        left -= chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => generator.listen(0, '127.0.0.1', resolve));
  const source = `http://127.0.0.1:${(generator.address() as AddressInfo).port}`;
  try {
    const { endpoint } = await s3Process.waitFor<{ endpoint: string }>('ready');
    const s3 = new S3Client({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true });
    const bucket = 'bench-videos';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const rows: TransferRow[] = [];
    for (const bytes of transferSizes()) {
      for (const mode of ['ours', 'baseline', 'download only'] as const) {
        const key = `videos/bench/${mode.replace(' ', '-')}-${bytes}.mp4`;
        const job: TransferJob = { mode, sourceUrl: `${source}/video/${bytes}.mp4`, endpoint, bucket, key, bytes };
        const child = spawnTsx('lib/bench/transfer-process.ts', { env: { BENCH_TRANSFER: JSON.stringify(job) } });
        const outcome = await child.waitFor<TransferOutcome>('done', 600_000);
        await child.exited;
        const { type: _type, ...measured } = outcome;
        const row: TransferRow = { ...measured, mibPerSecond: bytes / MiB / outcome.seconds };
        rows.push(row);
        log(
          `${(bytes / MiB).toFixed(0).padStart(5)} MiB ${mode.padEnd(8)} ${row.mibPerSecond.toFixed(0).padStart(4)} MiB/s, ` +
            `peak RSS +${(row.peakIncreaseBytes / MiB).toFixed(1)} MiB (from ${(row.rssBeforeBytes / MiB).toFixed(0)} MiB)`,
        );
        if (mode !== 'download only') await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      }
    }
    s3.destroy();
    return { rows, adapter: adapterSettings() };
  } finally {
    generator.closeAllConnections();
    generator.close();
    await s3Process.stop(5_000);
    rmSync(dir, { recursive: true, force: true });
  }
}

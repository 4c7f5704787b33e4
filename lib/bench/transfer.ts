/**
 * Section 2, transfer memory: a generated "video" (made on the fly, with Content-Length) streamed into
 * fauxqs at 100 MiB, 500 MiB and 1 GiB by the TransferVideo step's adapter and by a plain lib-storage
 * Upload, each in a fresh child process (lib/bench/transfer-process.ts) whose RSS alone is measured.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3AndSqs } from '../local/emulators.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/local-aws.js';
import { spawnTsx } from './child.js';
import type { TransferJob, TransferOutcome } from './transfer-process.js';

export type TransferRow = Omit<TransferOutcome, 'type'>;

const MiB = 2 ** 20;
const CHUNK = randomBytes(MiB);

export async function runTransfer(log: (line: string) => void): Promise<TransferRow[]> {
  const sizes = (process.env['BENCH_TRANSFER_MIB'] ?? '100,500,1024').split(',').map(Number);
  // Bytes on demand, never held: /video/<bytes>.mp4.
  const generator = createServer((req, res) => {
    let left = Number(/(\d+)\.mp4$/.exec(req.url ?? '')?.[1]);
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': left });
    if (req.method === 'HEAD') return void res.end();
    const pump = () => {
      while (left > 0) {
        const chunk = CHUNK.subarray(0, Math.min(left, MiB));
        left -= chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => generator.listen(0, '127.0.0.1', resolve));
  const source = `http://127.0.0.1:${(generator.address() as AddressInfo).port}`;
  // fauxqs (file-backed) in this process: only the child's memory is measured.
  const dir = mkdtempSync(join(tmpdir(), 'vgs-bench-s3-'));
  const fauxqs = await startS3AndSqs(dir);
  const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const s3 = new S3Client({ ...aws, endpoint: fauxqs.endpoint, forcePathStyle: true });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
    const rows: TransferRow[] = [];
    for (const mib of sizes) {
      for (const mode of ['ours', 'plain Upload'] as const) {
        const job: TransferJob = {
          mode,
          sourceUrl: `${source}/video/${mib * MiB}.mp4`,
          endpoint: fauxqs.endpoint,
          bucket: 'bench',
          key: `videos/${mode.replace(' ', '-')}-${mib}.mp4`,
          bytes: mib * MiB,
        };
        const child = spawnTsx('lib/bench/transfer-process.ts', { env: { BENCH_TRANSFER: JSON.stringify(job) } });
        const { type: _type, ...row } = await child.waitFor<TransferOutcome>('done', 600_000);
        await child.stop();
        rows.push(row);
        log(
          `${String(mib).padStart(4)} MiB ${mode.padEnd(12)} peak RSS +${(row.peakIncreaseBytes / MiB).toFixed(1)} MiB ` +
            `(from ${(row.rssBeforeBytes / MiB).toFixed(0)} MiB), ${(mib / row.seconds).toFixed(0)} MiB/s`,
        );
      }
    }
    return rows;
  } finally {
    s3.destroy();
    generator.closeAllConnections();
    generator.close();
    await fauxqs.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

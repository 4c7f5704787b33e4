/**
 * Section 2, transfer memory: a generated "video" (made on the fly, with Content-Length) streamed into fauxqs at
 * 100 MiB, 500 MiB and 1 GiB by the TransferVideo step's adapter and by a plain lib-storage Upload, each in a
 * fresh child process (lib/dev/bench/transfer-process.ts) whose RSS alone is measured.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startS3AndSqs } from '../local/emulators.js';
import { forkLocalProcess } from '../local/forked-process.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../ship/sam-local/local-aws.js';
import { chart, check, fixed, MiB, table } from './report.js';
import type { Section } from './report.js';
import type { TransferJob, TransferOutcome } from './transfer-process.js';

/** Peak RSS increase at every size; and flat: the largest size's within this factor of the smallest's. */
const [RSS_MIB, GROWTH] = [100, 1.25];
const CHUNK = randomBytes(MiB);
const mib = (bytes: number) => `${bytes / MiB} MiB`;

export async function runTransfer(log: (line: string) => void): Promise<Section> {
  const sizes = (process.env['BENCH_TRANSFER_MIB'] ?? '100,500,1024').split(',').map((n) => Number(n) * MiB);
  // Bytes on demand, never held: /<bytes>.mp4.
  const generator = createServer((req, res) => {
    const bytes = Number(/(\d+)\.mp4$/.exec(req.url ?? '')?.[1]);
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes });
    if (req.method === 'HEAD') return void res.end();
    const chunks = Array.from({ length: Math.ceil(bytes / MiB) }, (_, i) => CHUNK.subarray(0, bytes - i * MiB));
    Readable.from(chunks).pipe(res);
  });
  await new Promise<void>((resolve) => generator.listen(0, '127.0.0.1', resolve));
  // fauxqs (file-backed) in this process: only the child's memory is measured.
  const dir = mkdtempSync(join(tmpdir(), 'vgs-bench-s3-'));
  const fauxqs = await startS3AndSqs(dir);
  const aws = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true };
  const s3 = new S3Client({ ...aws, endpoint: fauxqs.endpoint });
  const rows: (TransferJob & TransferOutcome)[] = [];
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
    for (const bytes of sizes) {
      for (const mode of ['ours', 'plain Upload'] as const) {
        const source = `http://127.0.0.1:${(generator.address() as AddressInfo).port}/${bytes}.mp4`;
        const job: TransferJob = { mode, source, endpoint: fauxqs.endpoint, bytes };
        const entry = 'lib/dev/bench/transfer-process.ts';
        const child = await forkLocalProcess<TransferOutcome>({ name: entry, entry, config: job, timeoutMs: 600_000 });
        await child.stop(10_000);
        const row = { ...job, ...child.ready };
        rows.push(row);
        log(
          `${mib(bytes).padStart(8)} ${mode.padEnd(12)} peak RSS +${fixed(row.peakIncreaseBytes / MiB)} MiB ` +
            `(from ${fixed(row.rssBeforeBytes / MiB, 0)} MiB), ${fixed(bytes / MiB / row.seconds, 0)} MiB/s`,
        );
      }
    }
  } finally {
    s3.destroy();
    generator.closeAllConnections();
    generator.close();
    await fauxqs.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const increase = (mode: TransferJob['mode']) =>
    rows.filter((r) => r.mode === mode).map((r) => r.peakIncreaseBytes / MiB);
  const ours = rows.filter((row) => row.mode === 'ours');
  const [first, last] = [ours[0]!, ours.at(-1)!];
  const growth = last.peakIncreaseBytes / first.peakIncreaseBytes;
  const growthFigure = `Growth of the increase, ${first.bytes / MiB} → ${mib(last.bytes)}`;
  const checks = [
    ...ours.map((r) => {
      const [increase, met] = [`+${fixed(r.peakIncreaseBytes / MiB)} MiB`, r.peakIncreaseBytes <= RSS_MIB * MiB];
      return check(`Peak RSS increase, ${mib(r.bytes)}`, increase, `≤ ${RSS_MIB} MiB`, met);
    }),
    check(growthFigure, `${fixed(growth, 2)}×`, `≤ ${GROWTH}× (flat)`, growth <= GROWTH),
  ];
  const numbers = table(rows, {
    Size: (r) => mib(r.bytes),
    Mode: (r) => r.mode,
    'Peak RSS increase (MiB)': (r) => fixed(r.peakIncreaseBytes / MiB),
    'RSS before (MiB)': (r) => fixed(r.rssBeforeBytes / MiB, 0),
    'MiB/s': (r) => fixed(r.bytes / MiB / r.seconds, 0),
  });
  const title = 'Peak RSS increase (MiB); bars: ours, line: plain Upload';
  return { checks, blocks: [numbers, chart(title, 'MiB', sizes.map(mib), increase('ours'), increase('plain Upload'))] };
}

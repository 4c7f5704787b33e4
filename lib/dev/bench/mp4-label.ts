/**
 * The MP4 label's streaming rewrite against a plain pass: a 1 GiB synthetic file, moov-last and fast-start (a 64 KiB
 * stco), in 64 KiB chunks into a sink that copies each, each run in a fresh process: throughput, peak RSS increase.
 * Run: `npx tsx lib/dev/bench/mp4-label.ts` (not part of `npm run bench` nor `npm test`).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { aigcLabel, labelMp4Stream } from '../../../functions/core/mp4-label/index.js';

const CHUNK = 64 * 1024;
const MDAT_BYTES = 1024 ** 3;
type Mode = { layout: 'moov-last' | 'fast-start'; rewrite: 'plain' | 'label' };

const box = (type: string, payload: Uint8Array) => {
  const bytes = new Uint8Array(payload.length + 8);
  new DataView(bytes.buffer).setUint32(0, bytes.length);
  bytes.set(
    Uint8Array.from(type, (char) => char.charCodeAt(0)),
    4,
  );
  bytes.set(payload, 8);
  return bytes;
};
const nest = (type: string, ...children: Uint8Array[]) => box(type, Buffer.concat(children));

/** One track, a chunk per 64 KiB of mdat: a 64 KiB stco, as a long video's would be. */
function moov(mdatPayloadAt: number): Uint8Array {
  const count = MDAT_BYTES / CHUNK;
  const stco = new Uint8Array(8 + count * 4);
  const view = new DataView(stco.buffer);
  view.setUint32(4, count);
  for (let index = 0; index < count; index += 1) view.setUint32(8 + index * 4, mdatPayloadAt + index * CHUNK);
  const stbl = nest('stbl', box('stsd', new Uint8Array(8)), box('stco', stco));
  return nest('moov', box('mvhd', new Uint8Array(100)), nest('trak', nest('mdia', nest('minf', stbl))));
}

/** The file as 64 KiB chunks; the media data is one reused buffer, so the source allocates nothing per chunk. */
async function* source(layout: Mode['layout']): AsyncGenerator<Uint8Array> {
  const ftyp = box('ftyp', new Uint8Array(16));
  const mdatHeader = box('mdat', new Uint8Array(0));
  new DataView(mdatHeader.buffer).setUint32(0, MDAT_BYTES + 8);
  const moovSize = moov(0).length;
  const head = layout === 'fast-start' ? [ftyp, moov(ftyp.length + moovSize + 8), mdatHeader] : [ftyp, mdatHeader];
  yield* head;
  const media = new Uint8Array(CHUNK).fill(0x5a);
  for (let sent = 0; sent < MDAT_BYTES; sent += CHUNK) {
    yield media;
    // A download yields to the event loop between chunks; so the RSS sampler runs.
    if ((sent / CHUNK) % 16 === 0) await yieldToLoop();
  }
  if (layout === 'moov-last') yield moov(ftyp.length + 8);
}

async function child(mode: Mode) {
  const label = aigcLabel({ Label: '1', ContentProducer: 'BENCH', ProduceID: 'task_bench' });
  const input = source(mode.layout);
  const stream = mode.rewrite === 'label' ? labelMp4Stream(input, label) : input;
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const started = performance.now();
  let bytes = 0;
  // The sink copies every byte once, as an upload's buffer would: both runs touch the whole file.
  const sink = new Uint8Array(CHUNK);
  for await (const chunk of stream) {
    for (let at = 0; at < chunk.length; at += CHUNK) sink.set(chunk.subarray(at, at + CHUNK));
    bytes += chunk.length;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
  console.log(JSON.stringify({ ...mode, bytes, seconds, peakIncreaseMiB: (peak - before) / 1024 ** 2 }));
}

const arg = process.argv.find((value) => value.startsWith('--mode='));
if (arg) {
  await child(JSON.parse(arg.slice('--mode='.length)) as Mode);
} else {
  const self = fileURLToPath(import.meta.url);
  console.log('layout      rewrite  bytes          seconds  MiB/s   peak RSS increase');
  for (const layout of ['moov-last', 'fast-start'] as const) {
    for (const rewrite of ['plain', 'label'] as const) {
      const out = execFileSync('npx', ['tsx', self, `--mode=${JSON.stringify({ layout, rewrite })}`]).toString();
      const result = JSON.parse(out.trim().split('\n').at(-1)!);
      const rate = result.bytes / 1024 ** 2 / result.seconds;
      console.log(
        `${layout.padEnd(11)} ${rewrite.padEnd(8)} ${String(result.bytes).padEnd(14)} ${result.seconds.toFixed(2).padStart(7)}  ${rate.toFixed(0).padStart(5)}   ${result.peakIncreaseMiB.toFixed(1)} MiB`,
      );
    }
  }
}

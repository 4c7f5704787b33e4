/**
 * Reference URLs the simulators can download (they fetch every reference, as the upstreams do): real small
 * files from test-media.ts on 127.0.0.1 (port 0) in the test's own process, plus the faults a test asks for.
 * Paths: `/<name>` (png, jpeg, webp, mp4, hevcMov, mp3, wav), `/missing` (404), `/page` (an HTML page),
 * `/big?bytes=N` (N bytes declared and sent as a PNG). Loopback is allowed to the local stack's URL policy.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testMedia } from './test-media.js';
import type { MediaName } from './test-media.js';

const TYPES: Readonly<Record<MediaName, string>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  mp4: 'video/mp4',
  hevcMov: 'video/quicktime',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
};

let started: Promise<string> | undefined;

/** The server's base URL (`http://127.0.0.1:<port>`); it starts on first use and never holds the process open. */
export function mediaServer(): Promise<string> {
  started ??= new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://media');
      const name = url.pathname.slice(1);
      if (Object.hasOwn(TYPES, name)) {
        void testMedia(name as MediaName).then(
          (bytes) => {
            res.writeHead(200, { 'Content-Type': TYPES[name as MediaName], 'Content-Length': bytes.length });
            res.end(bytes);
          },
          () => res.writeHead(500).end(),
        );
        return;
      }
      if (name === 'page') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><p>hi');
      if (name === 'big') {
        const size = Number(url.searchParams.get('bytes') ?? 0);
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': size });
        return void res.end(Buffer.alloc(size));
      }
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
  return started;
}

/** A URL of a real file of `name`'s type. */
export async function mediaUrl(name: MediaName | 'missing' | 'page'): Promise<string> {
  return `${await mediaServer()}/${name}`;
}

/** A URL on a loopback port where nothing listens any more: the download is refused at once. */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/boat.png`;
}

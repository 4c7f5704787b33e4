/**
 * The bench's reference image: a 1×1 PNG served on 127.0.0.1 (port 0) by the bench's own process, since the
 * simulator downloads every reference as the real upstream does (docs/providers/ark.md, "References").
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let served: Promise<string> | undefined;

/** The image's URL; the server starts on first use and never holds the process open. */
export function referenceImageUrl(): Promise<string> {
  served ??= new Promise((resolve, reject) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PNG.length });
      res.end(PNG);
    });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boat.png`);
    });
  });
  return served;
}

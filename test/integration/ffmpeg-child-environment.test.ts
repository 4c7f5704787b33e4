/**
 * The decoder of an untrusted upload runs with an empty environment: the function's AWS credentials and
 * every other variable stay in the function. A stand-in ffmpeg (a script) writes the environment it got.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { FfmpegTranscoder } from '../../functions/adapters/ffmpeg-transcoder.js';

const dir = mkdtempSync(join(tmpdir(), 'vgs-ffmpeg-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('gives ffmpeg no AWS credentials and no variable of the function at all', async () => {
  const seen = join(dir, 'environment.json');
  const fake = join(dir, 'ffmpeg');
  writeFileSync(
    fake,
    `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.env));\n`,
  );
  chmodSync(fake, 0o755);
  const planted = {
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_SESSION_TOKEN: 'token',
    CLOUDFRONT_PRIVATE_KEY_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:k',
  };
  Object.assign(process.env, planted);
  try {
    await new FfmpegTranscoder(fake, 30_000).toH264(join(dir, 'in.mp4'), join(dir, 'out.mp4'));
  } finally {
    for (const name of Object.keys(planted)) delete process.env[name];
  }
  const environment = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, string>;
  for (const name of Object.keys(planted)) expect(environment).not.toHaveProperty(name);
  // Nothing of ours at all: what is left is what Node itself sets in a child.
  expect(Object.keys(environment).filter((name) => !/^(NODE_|__CF|PWD$|SHLVL$|_$)/.test(name))).toEqual([]);
});

/**
 * The decoder of an untrusted upload runs with an empty environment: the function's AWS credentials and
 * every other variable stay in the function. A stand-in ffmpeg (a script) writes the environment it got;
 * the second test runs the TranscodeUpload bundle (as CDK deploys it) on an upload in the shared stack's S3.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ENV } from '../../functions/adapters/runtime/config.js';
import { FfmpegTranscoder } from '../../functions/adapters/media/ffmpeg-transcoder.js';
import { UPLOAD_TRANSCODER } from '../../functions/adapters/runtime/resources.js';
import { functionById } from '../../functions/catalog.js';
import { transcodedObjectKey } from '../../functions/core/uploads.js';
import { loadBundledHandler } from '../../lib/dev/local/handler-loader.js';
import { lambdaContext } from '../../lib/dev/local/lambda-context.js';
import { lambdaBundles } from '../../lib/ship/build/lambda-bundles.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import { sharedStack } from '../support/shared-stack.js';
import { testMedia } from '../support/test-media.js';

const dir = mkdtempSync(join(tmpdir(), 'vgs-ffmpeg-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const planted = {
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'token',
  CLOUDFRONT_PRIVATE_KEY_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:k',
};

/** A stand-in ffmpeg that records its environment in `seen` and writes its last argument (the output). */
function recordingFfmpeg(seen: string): string {
  const fake = join(dir, `ffmpeg-${randomUUID()}`);
  writeFileSync(
    fake,
    `#!${process.execPath}\nconst fs = require('node:fs');\n` +
      `fs.writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.env));\n` +
      `fs.writeFileSync(process.argv.at(-1), 'not really a video');\n`,
  );
  chmodSync(fake, 0o755);
  return fake;
}

function expectNothingOfOurs(seen: string) {
  const environment = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, string>;
  for (const name of Object.keys(planted)) expect(environment).not.toHaveProperty(name);
  // Nothing of ours at all: what is left is what Node itself sets in a child.
  expect(Object.keys(environment).filter((name) => !/^(NODE_|__CF|PWD$|SHLVL$|_$)/.test(name))).toEqual([]);
}

it('gives ffmpeg no AWS credentials and no variable of the function at all', async () => {
  const seen = join(dir, 'environment.json');
  Object.assign(process.env, planted);
  try {
    await new FfmpegTranscoder(recordingFfmpeg(seen), 30_000).toH264(join(dir, 'in.mp4'), join(dir, 'out.mp4'));
  } finally {
    for (const name of Object.keys(planted)) delete process.env[name];
  }
  expectNothingOfOurs(seen);
});

it('the TranscodeUpload bundle runs ffmpeg with none of the credentials it signs its S3 requests with', async () => {
  const stack = sharedStack();
  const key = `uploads/acct-ffmpeg-env/${randomUUID()}`;
  const s3 = new S3Client({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: stack.endpoints.s3,
    forcePathStyle: true,
  });
  await s3.send(new PutObjectCommand({ Bucket: stack.names.videoBucket, Key: key, Body: await testMedia('hevcMov') }));
  const seen = join(dir, 'bundle-environment.json');
  // The function's environment as Lambda gives it (its credentials, the variables CDK sets) and one it never has.
  Object.assign(process.env, planted, {
    AWS_REGION: LOCAL_REGION,
    AWS_ENDPOINT_URL_S3: stack.endpoints.s3,
    [ENV.s3ForcePathStyle.name]: 'true',
    [ENV.videoBucket.name]: stack.names.videoBucket,
    [ENV.ffmpegPath.name]: recordingFfmpeg(seen),
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const bundles = (await lambdaBundles()).files;
  const handler = await loadBundledHandler<(event: unknown, context: Context) => Promise<{ key: string }>>(
    bundles,
    functionById(UPLOAD_TRANSCODER.id).entry,
  );
  try {
    const answer = await handler({ object_key: key }, lambdaContext(UPLOAD_TRANSCODER.id));
    expect(answer).toEqual({ key: transcodedObjectKey(key) });
  } finally {
    for (const name of Object.keys(planted)) delete process.env[name];
  }
  expect(existsSync(seen)).toBe(true);
  expectNothingOfOurs(seen);
});

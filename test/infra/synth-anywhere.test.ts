/**
 * `cdk synth` from a fresh clone on a host where npm skipped @ffmpeg-installer/linux-x64 (macOS, arm64): the
 * app runs in a child process on a copy of the checkout whose node_modules lacks the package. It fetches the
 * locked tarball (npm's cache, offline here), or takes an operator's layer ARN; a committed public key
 * synthesizes; every missing input is one line naming the fix.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdkJson, REPOSITORY_ROOT } from './synth.js';

const TSX_CLI = join(REPOSITORY_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const LAYER_ARN = 'arn:aws:lambda:eu-west-1:123456789012:layer:ffmpeg-7:3';

let work: string;
let clone: string;

/** The checkout's files (tracked and untracked, not ignored), and a node_modules without the ffmpeg package. */
function freshClone(): string {
  const dir = join(work, 'clone');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: REPOSITORY_ROOT })
    .toString()
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(REPOSITORY_ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(REPOSITORY_ROOT, file), join(dir, file));
  }
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(REPOSITORY_ROOT, 'node_modules'))) {
    if (entry === '@ffmpeg-installer' || entry === '.cache') continue;
    symlinkSync(join(REPOSITORY_ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  return dir;
}

/**
 * `cdk synth` as the CLI runs the app (cdk.json's context in CDK_CONTEXT_JSON), no bundling, and without the
 * built-in CloudFormation validation (`--no-validation`: most of the CPU; video-service-stack.test.ts runs it).
 */
function synth(context: Record<string, unknown>, env: Record<string, string> = {}) {
  const outdir = mkdtempSync(join(work, 'out-'));
  const result = spawnSync(process.execPath, [TSX_CLI, 'bin/cdk-app.ts'], {
    cwd: clone,
    encoding: 'utf8',
    env: {
      ...process.env,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJson().context, 'aws:cdk:bundling-stacks': [], ...context }),
      CDK_VALIDATION: 'false',
      ...env,
    },
  });
  const template = (name: string) => JSON.parse(readFileSync(join(outdir, `${name}.template.json`), 'utf8'));
  return { status: result.status, stderr: result.stderr, template };
}

const KEYS = {
  cloudFrontSigningKeys: { vgs: { active: 'k1', publicKeys: { k1: 'keys/vgs-k1.pub.pem' } } },
};
/** npm without a network and with an empty cache: a fetch can only fail. */
const NO_NPM = () => ({ npm_config_offline: 'true', npm_config_cache: mkdtempSync(join(work, 'npm-cache-')) });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'vgs-anywhere-'));
  clone = freshClone();
  // The operator's committed public key (docs/operations.md, "First deploy").
  const { publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  mkdirSync(join(clone, 'keys'));
  writeFileSync(join(clone, 'keys', 'vgs-k1.pub.pem'), publicKey);
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('synthesis on a host without the ffmpeg package', () => {
  it('lets git commit a public key where the docs put it, and keeps private keys out', () => {
    const ignored = (file: string) =>
      spawnSync('git', ['check-ignore', '-q', '--no-index', file], { cwd: REPOSITORY_ROOT }).status === 0;
    expect(ignored('keys/vgs-k1.pub.pem')).toBe(false);
    expect(ignored('keys/vgs-k1.pem')).toBe(true);
    expect(ignored('vgs-k1.pem')).toBe(true);
  });

  it('fails in one line naming the fixes when the package can be neither found nor fetched', () => {
    const { status, stderr } = synth({ ...KEYS, alarmsTo: 'none' }, NO_NPM());
    expect(status).toBe(1);
    const last = stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^error: @ffmpeg-installer\/linux-x64@[\d.]+ .*npm pack.*ffmpegLayerArn/);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(join(clone, 'node_modules', '.cache'))).toBe(false);
  }, 120_000);

  it('says which key file is missing and how to make it, in one line', () => {
    const keys = { cloudFrontSigningKeys: { vgs: { active: 'k2', publicKeys: { k2: 'keys/vgs-k2.pub.pem' } } } };
    const { status, stderr } = synth({ ...keys, alarmsTo: 'none' }, NO_NPM());
    expect(status).toBe(1);
    expect(stderr.trim().split('\n').at(-1)).toMatch(/^error: .*keys\/vgs-k2\.pub\.pem does not exist: .*openssl rsa/);
    expect(stderr).not.toMatch(/ENOENT|^\s+at /m);
  }, 120_000);

  it('uses an operator layer given by ARN, fetching nothing', () => {
    const { status, stderr, template } = synth(
      { ...KEYS, alarmsTo: 'none', ffmpegLayerArn: LAYER_ARN, ffmpegLayerArchitecture: 'arm64' },
      NO_NPM(),
    );
    expect(stderr).toContain('Alarms go to: nowhere');
    expect(status, stderr).toBe(0);
    const functions = Object.values(
      template('vgs-stateless').Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>,
    ).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' &&
        JSON.stringify(resource.Properties['Layers'] ?? []).includes(LAYER_ARN),
    );
    expect(functions).toHaveLength(1);
    expect(functions[0]?.Properties['Architectures']).toEqual(['arm64']);
    expect(existsSync(join(clone, 'node_modules', '.cache'))).toBe(false);
  }, 300_000);

  it("fetches the locked package with npm pack (npm's cache here), checks it and builds the layer from it", () => {
    const { status, stderr, template } = synth(
      { ...KEYS, alarmsTo: 'ops@example.com' },
      { npm_config_offline: 'true' },
    );
    expect(status, stderr).toBe(0);
    const fetched = join(clone, 'node_modules', '.cache', 'ffmpeg-layer', 'linux-x64-4.1.0', 'ffmpeg');
    expect(statSync(fetched).mode & 0o111).not.toBe(0);
    expect(statSync(fetched).size).toBe(
      statSync(join(REPOSITORY_ROOT, 'node_modules', '@ffmpeg-installer', 'linux-x64', 'ffmpeg')).size,
    );
    const layers = Object.values(template('vgs-stateless').Resources as Record<string, { Type: string }>).filter(
      (resource) => resource.Type === 'AWS::Lambda::LayerVersion',
    );
    expect(layers).toHaveLength(1);
    // The committed key made it into the template: a deployable synthesis.
    expect(JSON.stringify(template('vgs-stateful'))).not.toContain('CloudFrontSigningKeyNotConfigured');
  }, 300_000);
});

/**
 * The CloudFront signing keys come from CDK context (`cloudFrontSigningKeys.<prefix>` in cdk.json), read and
 * checked at synthesis so that a mistake stops `cdk synth`, not a deploy halfway. The deploy lifecycle built
 * on them (first deploy, plain redeploy, rotation, teardown) is deploy-lifecycle.test.ts.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SIGNING_KEYS, SIGNING_KEYS_CONTEXT, signingKeysFromContext } from '../../lib/ship/cdk/video-delivery.js';
import type { SynthesizedService } from './synth.js';
import { resourcesOfType, synthesizeService } from './synth.js';

function rsaKeyPair(modulusLength = 2048) {
  return generateKeyPairSync('rsa', {
    modulusLength,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

const PAIR = rsaKeyPair();
const dir = mkdtempSync(join(tmpdir(), 'vgs-keys-'));
const PUBLIC_FILE = join(dir, 'k1.pub.pem');
writeFileSync(PUBLIC_FILE, PAIR.publicKey);

let service: SynthesizedService;
beforeAll(() => {
  service = synthesizeService({
    context: {
      prefix: 'dev-x',
      [SIGNING_KEYS_CONTEXT]: { 'dev-x': { active: 'k1', publicKeys: { k1: PUBLIC_FILE } } },
    },
  });
}, 120_000);
afterAll(() => {
  service?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('signingKeysFromContext', () => {
  const read = (entry: unknown, prefix = 'vgs') => signingKeysFromContext({ [prefix]: entry }, prefix);

  it('is undefined for a prefix without keys (the deploy-time guard then stands in)', () => {
    expect(signingKeysFromContext({}, 'vgs')).toBeUndefined();
    expect(signingKeysFromContext(undefined, 'vgs')).toBeUndefined();
    expect(signingKeysFromContext({ prod: { active: 'k1', publicKeys: { k1: PAIR.publicKey } } }, 'vgs')).toBe(
      undefined,
    );
  });

  it('reads a PEM file (or PEM text, or the JSON string `-c` gives) into one canonical PEM', () => {
    const fromFile = read({ active: 'k1', publicKeys: { k1: PUBLIC_FILE } });
    const messy = `\r\n${PAIR.publicKey.replace(/\n/g, '\r\n')}\n\n`;
    const fromText = read({ active: 'k1', publicKeys: { k1: messy } });
    const fromJson = signingKeysFromContext(
      JSON.stringify({ vgs: { active: 'k1', publicKeys: { k1: PAIR.publicKey } } }),
      'vgs',
    );
    expect(fromFile?.publicKeys['k1']).toBe(PAIR.publicKey);
    expect(fromText).toEqual(fromFile);
    expect(fromJson).toEqual(fromFile);
  });

  it('refuses a private key, a key CloudFront or the signer cannot use, and malformed config', () => {
    const keys =
      (publicKeys: Record<string, string>, active = 'k1') =>
      () =>
        read({ active, publicKeys });
    expect(keys({ k1: PAIR.privateKey })).toThrow(/private key/);
    expect(keys({ k1: rsaKeyPair(1024).publicKey })).toThrow(/RSA 2048/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    expect(keys({ k1: ec.toString() })).toThrow(/RSA 2048/);
    expect(keys({ k1: PAIR.publicKey }, 'k2')).toThrow(/active must name one of its publicKeys/);
    expect(keys({ 'k-1': PAIR.publicKey }, 'k-1')).toThrow(/letters or digits/);
    expect(keys({})).toThrow(/1 to 5 keys/);
    const six = Object.fromEntries(
      Array.from({ length: MAX_SIGNING_KEYS + 1 }, (_, i) => [`k${i + 1}`, PAIR.publicKey]),
    );
    expect(keys(six)).toThrow(/1 to 5 keys/);
  });
});

describe('the synthesized stacks', () => {
  it('trust the configured key as is, and ask for no deploy-time parameter', () => {
    const [[, publicKey]] = resourcesOfType(service.statefulJson, 'AWS::CloudFront::PublicKey') as [[string, never]];
    expect(publicKey).toMatchObject({ Properties: { PublicKeyConfig: { EncodedKey: PAIR.publicKey } } });
    expect(Object.keys(service.stateful.toJSON()['Parameters'] ?? {})).toEqual(['BootstrapVersion']);
  });

  it('are named, with their resources, from the prefix context', () => {
    expect(service.stacks.stateful.stackName).toBe('dev-x-stateful');
    expect(service.stacks.stateless.stackName).toBe('dev-x-stateless');
    service.stateful.hasResourceProperties('AWS::DynamoDB::Table', { TableName: 'dev-x-tasks' });
    service.stateless.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: { 'Fn::Join': ['-', ['dev-x-task-lifecycle', Match.anyValue()]] },
    });
  });
});

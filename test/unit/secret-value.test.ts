/**
 * The secret cache (functions/adapters/runtime/secret-value.ts, Powertools Parameters): a secret is read from
 * Secrets Manager once and kept for minutes (not Parameters' 5 s, not for good); a failed read is not kept, so the next
 * call reads again; a secret with no string value is refused. Secrets Manager is the SDK client, stubbed.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { GetSecretValueCommandOutput } from '@aws-sdk/client-secrets-manager';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cachedSecret, SECRET_MAX_AGE_SECONDS } from '../../functions/adapters/runtime/secret-value.js';

let answers: Map<string, () => Partial<GetSecretValueCommandOutput>>;
let reads: string[];

beforeEach(() => {
  answers = new Map();
  reads = [];
  vi.spyOn(SecretsManagerClient.prototype, 'send').mockImplementation(async (command: unknown) => {
    expect(command).toBeInstanceOf(GetSecretValueCommand);
    const secretId = (command as GetSecretValueCommand).input.SecretId!;
    reads.push(secretId);
    const answer = answers.get(secretId);
    if (!answer) throw new Error(`ResourceNotFoundException: ${secretId}`);
    return answer();
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A new secret's ARN (the provider's cache lives for the whole file). */
const secretArn = () => `arn:aws:secretsmanager:us-east-1:000000000000:secret:vgs-${randomUUID()}`;

describe('cachedSecret', () => {
  it('reads a secret once and keeps it, for every reader of it', async () => {
    const arn = secretArn();
    answers.set(arn, () => ({ SecretString: 'ark-key-1' }));
    const read = cachedSecret(arn);
    expect(await read()).toBe('ark-key-1');
    expect(await read()).toBe('ark-key-1');
    expect(await cachedSecret(arn)()).toBe('ark-key-1');
    expect(reads).toEqual([arn]);
  });

  it('keeps it for minutes, then reads it again: a rotated value reaches warm functions', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const arn = secretArn();
    let value = 'key-1';
    answers.set(arn, () => ({ SecretString: value }));
    const read = cachedSecret(arn);
    expect(await read()).toBe('key-1');
    value = 'key-2';
    vi.setSystemTime(Date.now() + (SECRET_MAX_AGE_SECONDS - 5) * 1000);
    expect(await read()).toBe('key-1');
    vi.setSystemTime(Date.now() + 10 * 1000);
    expect(await read()).toBe('key-2');
    expect(reads).toEqual([arn, arn]);
  });

  it('a failed read is not kept: the next call reads again', async () => {
    const arn = secretArn();
    const read = cachedSecret(arn);
    await expect(read()).rejects.toThrow('ResourceNotFoundException');
    answers.set(arn, () => ({ SecretString: 'now-set' }));
    expect(await read()).toBe('now-set');
    expect(await read()).toBe('now-set');
    expect(reads).toEqual([arn, arn]);
  });

  it('refuses a secret that has no string value', async () => {
    const arn = secretArn();
    answers.set(arn, () => ({ SecretBinary: new Uint8Array([1, 2, 3]) }));
    await expect(cachedSecret(arn)()).rejects.toThrow(`secret ${arn} has no string value`);
  });

  it('keeps each secret apart', async () => {
    const [first, second] = [secretArn(), secretArn()];
    answers.set(first, () => ({ SecretString: 'one' }));
    answers.set(second, () => ({ SecretString: 'two' }));
    expect(await Promise.all([cachedSecret(first)(), cachedSecret(second)()])).toEqual(['one', 'two']);
  });
});

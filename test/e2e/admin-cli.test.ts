/**
 * The admin CLI against a started local stack: help on every command, one line and exit code 2 for every bad
 * argument, keys by id, and what account:disable means to the API (the account's keys get 401). A few runs
 * spawn bin/admin.ts as an operator would; the rest call runAdmin, the same code, without a process each.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../functions/adapters/runtime/resources.js';
import { runAdmin } from '../../lib/ship/admin/cli.js';
import { runtimeFile } from '../../lib/ship/admin/target.js';
import { REPOSITORY_ROOT } from '../../lib/ship/repository-root.js';
import { callApi } from '../support/test-stack.js';
import { sharedStack } from '../support/shared-stack.js';
import type { SharedStack } from '../support/shared-stack.js';

let stack: SharedStack;
let dataDir: string;
let emptyDir: string;
beforeAll(async () => {
  stack = sharedStack();
  // What `npm start` writes for the CLI to find the stack.
  dataDir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
  writeFileSync(runtimeFile(dataDir), JSON.stringify({ endpoints: stack.endpoints, names: stack.names }));
  emptyDir = mkdtempSync(join(tmpdir(), 'admin-cli-none-'));
  delete process.env['TABLE_PREFIX'];
  for (const table of Object.values(TABLES)) delete process.env[table.envVar];
});
afterAll(async () => {
  for (const dir of [dataDir, emptyDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run --silent admin -- …args` as a process of its own (node + tsx, without npm's start-up). */
function spawned(args: string[], dir = dataDir): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dir };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: REPOSITORY_ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The same command line, run in this process. */
async function admin(args: string[], dir = dataDir): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  process.env['DATA_DIR'] = dir;
  const code = await runAdmin(args, { out: (line) => out.push(`${line}\n`), err: (line) => err.push(`${line}\n`) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

function expectOneLineError(run: Run, code: number, message: RegExp) {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(message);
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

const COMMANDS = [
  'account:create',
  'account:show',
  'account:disable',
  'account:enable',
  'balance:topup',
  'key:create',
  'key:list',
  'key:disable',
  'key:enable',
  'models:seed',
  'upgrade',
  'webhook:secret',
  'webhook:rotate',
];

/** Each kind of bad argument, with what its one line says. */
const BAD_ARGUMENTS: [string, string[], RegExp][] = [
  ['a negative amount', ['balance:topup', '--account', 'a', '--amount', '-5'], /--amount needs a value/],
  ['a negative amount as a value', ['balance:topup', '--account', 'a', '--amount=-5'], /"-5" is not an amount/],
  ['a zero amount', ['balance:topup', '--account', 'a', '--amount', '0'], /--amount must be positive/],
  [
    'an amount past the bound',
    ['balance:topup', '--account', 'a', '--amount', '1000000000.0001'],
    /--amount must be at most 1,000,000,000 CNY/,
  ],
  [
    'a mistyped option',
    ['balance:topup', '--acount', 'a', '--amount', '5'],
    /^error: balance:topup: unknown option --acount; it takes --account, --amount, --request-id$/,
  ],
  ['a missing value', ['balance:topup', '--account', 'a', '--amount'], /--amount needs a value/],
  ['a missing option', ['key:list'], /key:list: --account is required/],
  ['an option given twice', ['balance:topup', '--account', 'a', '--amount', '1', '--amount', '2'], /given 2 times/],
  ['an unknown command', ['acount:create', '--id', 'x'], /unknown command "acount:create"/],
  ['an option before any command', ['--id', 'x'], /expected a command before --id/],
  ['a stray argument', ['key:list', '--account', 'a', 'extra'], /unexpected argument "extra"/],
  ['two account ids', ['account:show', 'a', 'b'], /one account id/],
  ['no account id', ['account:disable'], /the account id is required/],
  ['a bad rate', ['key:create', '--account', 'a', '--rate', '2.5'], /--rate must be a whole number/],
  ['a bad quota', ['key:create', '--account', 'a', '--quota', '1e3'], /--quota: "1e3" is not an amount/],
  ['a key that is neither an id nor a key', ['key:disable', '--key', 'secret'], /--key must be a key id/],
  ['an unreadable catalog', ['models:seed', '--file', '/nonexistent.json'], /cannot read the catalog/],
  ['a code without an amount', ['code:create', '--count', '2'], /--amount is required/],
  ['too many codes', ['code:create', '--amount', '5', '--count', '1001'], /--count must be a whole number from 1/],
  ['codes valid no days', ['code:create', '--amount', '5', '--days', '0'], /--days must be a whole number from 1/],
];

describe('as a process (bin/admin.ts)', () => {
  it('--help lists every command (it used to crash), exit 0; so does a command --help, with no stack running', async () => {
    const [help, commandHelp] = await Promise.all([
      spawned(['--help'], emptyDir),
      spawned(['key:create', '--help'], emptyDir),
    ]);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    for (const command of COMMANDS) expect(help.stdout).toContain(`\n  ${command} `);
    expect(commandHelp).toMatchObject({ code: 0, stderr: '' });
    expect(commandHelp.stdout).toMatch(/^Usage: npm run --silent admin -- key:create --account ID/);
  });

  it('a bad argument: one line on stderr, no stack trace, exit code 2', async () => {
    const picked = BAD_ARGUMENTS.filter(([label]) =>
      ['a negative amount', 'a mistyped option', 'a missing value', 'an unknown command'].includes(label),
    );
    const runs = await Promise.all(picked.map(([, args]) => spawned(args, emptyDir)));
    runs.forEach((run, index) => {
      expectOneLineError(run, 2, picked[index]![2]);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    });
  });

  it('no running stack: one line, exit code 1', async () => {
    expectOneLineError(await spawned(['account:show', 'acme'], emptyDir), 1, /no running local stack found/);
  });

  it('a created key alone on stdout, the note on stderr', async () => {
    const accountId = `cli-${Math.random().toString(36).slice(2, 10)}`;
    expect(await spawned(['account:create', '--id', accountId, '--balance', '3'])).toEqual({
      code: 0,
      stdout: `created account ${accountId} with 3 CNY (local)\n`,
      stderr: '',
    });
    const created = await spawned(['key:create', '--account', accountId]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^bc_[\w-]+\n$/);
    expect(created.stderr).toMatch(/^created key_\w+ for account .+ \(no quota, default rate limit\); shown once/);
    const balance = await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', {
      key: created.stdout.trim(),
    });
    expect(balance.body.data.balance).toBe(3);
  });
});

describe('help', () => {
  it.each([[[]], [['--help']], [['-h']], [['help']]])('%j prints every command, exit 0', async (args) => {
    const run = await admin(args, emptyDir);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Usage: npm run --silent admin -- <command>/);
    for (const command of COMMANDS) expect(run.stdout).toContain(`\n  ${command} `);
  });

  it.each(COMMANDS)('%s --help, -h and help %s', async (command) => {
    for (const args of [
      [command, '--help'],
      [command, '-h'],
      ['help', command],
      [command, '--bogus', '--help'],
    ]) {
      const run = await admin(args, emptyDir);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(new RegExp(`^Usage: npm run --silent admin -- ${command}( |\\n)`));
    }
  });
});

describe('bad arguments: one line, exit code 2, before anything is read or written', () => {
  // emptyDir: no stack is found there, so a run that reached for one would fail otherwise (exit code 1).
  it.each(BAD_ARGUMENTS)('%s', async (_label, args, message) => {
    expectOneLineError(await admin(args, emptyDir), 2, message);
  });

  it('a refusal by the store (unknown account or key) is exit code 2 too', async () => {
    expectOneLineError(await admin(['account:show', 'no-such-account']), 2, /account no-such-account does not exist/);
    expectOneLineError(await admin(['key:disable', '--key', 'key_0000000000000000']), 2, /no such key/);
    expectOneLineError(await admin(['key:list', '--account', 'no-such-account']), 2, /does not exist/);
  });
});

describe('top-up codes', () => {
  it('code:create prints each code alone on a line, the note on stderr', async () => {
    const run = await admin(['code:create', '--amount', '7.5', '--count', '3', '--days', '2']);
    expect(run.code).toBe(0);
    const codes = run.stdout.trimEnd().split('\n');
    expect(codes).toHaveLength(3);
    for (const code of codes) expect(code).toMatch(/^VGS(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
    expect(run.stderr).toMatch(/^3 code\(s\) of 7\.5 CNY, valid until \d{4}-/);
  });
});

describe('accounts and keys', () => {
  const accountId = `cli-${Math.random().toString(36).slice(2, 10)}`;
  const balanceOf = async (key: string) =>
    (await callApi<{ balance: number }>(stack, 'GET', '/api/v1/account/balance', { key })).body;

  it('creates, tops up and shows an account, with the same output as before', async () => {
    const created = await admin(['account:create', '--id', accountId, '--balance', '10']);
    expect(created).toEqual({ code: 0, stdout: `created account ${accountId} with 10 CNY (local)\n`, stderr: '' });
    const toppedUp = await admin(['balance:topup', '--account', accountId, '--amount', '2.5', '--request-id', 'r-1']);
    expect(toppedUp).toEqual({ code: 0, stdout: `account ${accountId} balance: 12.5 CNY\n`, stderr: '' });
    expectOneLineError(
      await admin(['balance:topup', '--account', accountId, '--amount', '999999999', '--request-id', 'r-2']),
      2,
      /refused: the balance \(12\.5 CNY\) plus 999999999 CNY would pass the maximum of 1,000,000,000 CNY/,
    );
    const shown = await admin(['account:show', accountId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(
        `^account +${accountId}\nstatus +active\nbalance +12\\.5 CNY\nkeys +0 \\(0 active\\)\ncreated +\\d{4}-`,
      ),
    );
  });

  it('lists keys by account and addresses them by id', async () => {
    const first = await admin(['key:create', '--account', accountId, '--quota', '5', '--rate', '20']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^created key_\w+ for account .+ \(quota 5 CNY, 20 requests\/s\); shown once/);
    const key = lastLine(first.stdout);
    expect(key).toMatch(/^bc_/);
    const keyId = /created (key_\w+)/.exec(first.stderr)![1]!;
    const second = lastLine((await admin(['key:create', '--account', accountId])).stdout);

    const list = await admin(['key:list', '--account', accountId]);
    expect(list.code).toBe(0);
    const rows = list.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    expect(rows[0]).toEqual(['id', 'status', 'quota', 'spent', 'rate', 'created']);
    expect(rows[1]).toEqual([keyId, 'active', '5', '0', '20/s', expect.stringMatching(/^\d{4}-\d\d-\d\dT/)]);
    expect(rows[2]).toEqual([expect.stringMatching(/^key_/), 'active', 'none', '0', 'default', expect.any(String)]);
    expect(list.stdout).not.toContain('bc_');

    expect((await balanceOf(key)).code).toBe(0);
    expect(await admin(['key:disable', '--key', keyId])).toEqual({ code: 0, stdout: 'key disabled\n', stderr: '' });
    expect((await balanceOf(key)).code).toBe(401);
    expect((await balanceOf(second)).code).toBe(0);
    expect((await admin(['key:list', '--account', accountId])).stdout).toMatch(new RegExp(`${keyId} +disabled`));

    expect(await admin(['key:enable', '--key', keyId])).toEqual({
      code: 0,
      stdout: `key ${keyId} enabled\n`,
      stderr: '',
    });
    expect((await balanceOf(key)).code).toBe(0);
    // The plaintext still addresses a key, as before.
    expect((await admin(['key:disable', '--key', second])).code).toBe(0);
    expect((await balanceOf(second)).code).toBe(401);
    expect((await admin(['key:enable', '--key', second])).code).toBe(0);
  });

  it('account:disable: its keys get 401 at once, and none comes back until account:enable', async () => {
    const keyIds = (await admin(['key:list', '--account', accountId])).stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[0]!);
    expect(keyIds).toHaveLength(2);
    const plaintext = lastLine((await admin(['key:create', '--account', accountId])).stdout);
    expect((await balanceOf(plaintext)).code).toBe(0);

    const disabled = await admin(['account:disable', accountId]);
    expect(disabled).toEqual({ code: 0, stdout: `account ${accountId} disabled (3 keys disabled)\n`, stderr: '' });
    expect((await balanceOf(plaintext)).code).toBe(401);
    expect((await admin(['account:show', accountId])).stdout).toMatch(/status +disabled\n(.|\n)*keys +3 \(0 active\)/);
    expectOneLineError(await admin(['key:create', '--account', accountId]), 2, /is disabled \(account:enable first\)/);
    expectOneLineError(await admin(['key:enable', '--key', keyIds[0]!]), 2, /is disabled/);
    // A key that exists is named as such first: the local stack's demo key start-up relies on it.
    await expect(stack.admin.createKey({ accountId, plaintext })).rejects.toThrow('this key already exists');

    expect((await admin(['account:enable', '--account', accountId])).code).toBe(0);
    expect((await balanceOf(plaintext)).code).toBe(401);
    expect((await admin(['key:enable', '--key', plaintext])).code).toBe(0);
    expect(await balanceOf(plaintext)).toMatchObject({ code: 0, data: { balance: 12.5 } });
  });

  it('account:show marks a stored balance past the bound, which the API shows as the bound', async () => {
    const id = `${accountId}-old`;
    await stack.db.send(
      new PutItemCommand({
        TableName: stack.names.tables.accounts,
        Item: { account_id: { S: id }, balance_units: { N: '100000000000000000000' }, created_at: { S: 'then' } },
      }),
    );
    expect((await admin(['account:show', id])).stdout).toMatch(
      /balance +10000000000000000 CNY \(past the 1,000,000,000 CNY bound: the API shows 1000000000\)/,
    );
  });
});

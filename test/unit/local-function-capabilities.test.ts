/**
 * A handler run locally sees only the variables its catalog entry declares (lib/dev/local/local-function.ts), so
 * a function declared without a group it uses fails at its first load, as it would in AWS; and a call that
 * outlives the function's timeout ends with Lambda's `Sandbox.Timedout`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { physicalNames } from '../../functions/adapters/runtime/resources.js';
import { CATALOG, functionById } from '../../functions/catalog.js';
import type { FunctionDeclaration } from '../../functions/catalog.js';
import { everyProviderAt, localHandlerEnvironment } from '../../lib/ship/sam-local/handler-environment.js';
import { loadHandler } from '../../lib/dev/local/handler-loader.js';
import { localFunction, localTimeoutMs } from '../../lib/dev/local/local-function.js';

const saved = { ...process.env };
beforeAll(() => {
  // Every variable the local stack sets, at placeholder endpoints: loading a handler makes no call.
  Object.assign(process.env, {
    ...localHandlerEnvironment(physicalNames('capabilities'), {
      dynamodb: 'http://127.0.0.1:9',
      s3AndSqs: 'http://127.0.0.1:9',
      sfn: 'http://127.0.0.1:9',
      upstreams: everyProviderAt('http://127.0.0.1:9', 'placeholder'),
      stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:capabilities',
      webhookQueueUrl: 'http://127.0.0.1:9/000000000000/capabilities-webhooks',
    }),
    LOCAL_TIMEOUT_FACTOR: '1',
  });
});
afterAll(() => {
  process.env = saved;
});
// Each load evaluates the handler and its composition roots anew, in the view of the function loading it.
beforeEach(() => vi.resetModules());

const loading = (declaration: FunctionDeclaration) =>
  localFunction(declaration, () => loadHandler<(event: unknown) => Promise<unknown>>(declaration.entry)).ready();

describe('a function declared without a capability it uses', () => {
  it.each(CATALOG.map((declaration) => [declaration.id, declaration] as const))(
    '%s: declares every variable its handler reads at load',
    async (_id, declaration) => {
      await expect(loading(declaration)).resolves.toBeUndefined();
    },
  );

  it('fails to load, naming the variable it lacks', async () => {
    const getBalance = functionById('GetBalance');
    expect(getBalance.uses).toContain('authentication');
    const withoutAuthentication = { ...getBalance, uses: getBalance.uses.filter((use) => use !== 'authentication') };
    await expect(loading(withoutAuthentication)).rejects.toThrow(/environment variable API_KEYS_TABLE is required/);
  });
});

describe("a function's own view of the environment", () => {
  const probe = { id: 'Probe', uses: [{ kind: 'config' as const, variables: ['COMPLETION_POLL_SECONDS'] }] };
  const read = () => async () => ({
    own: process.env['COMPLETION_POLL_SECONDS'],
    other: process.env['TASKS_TABLE'],
    runtime: process.env['AWS_REGION'],
  });

  it('holds in every call, and only for the function', async () => {
    process.env['COMPLETION_POLL_SECONDS'] = '7';
    const run = localFunction(probe, async () => read());
    await expect(run({})).resolves.toEqual({ own: '7', other: undefined, runtime: process.env['AWS_REGION'] });
    expect(process.env['TASKS_TABLE']).toBe('capabilities-tasks');
  });
});

describe("a function's local timeout", () => {
  it('ends a call that outlives it with Sandbox.Timedout', async () => {
    const slow = { id: 'Slow', uses: [], timeoutSeconds: 0.05 };
    expect(localTimeoutMs(slow)).toBe(50);
    const run = localFunction(slow, async () => () => new Promise<never>(() => undefined));
    await expect(run({})).rejects.toMatchObject({ name: 'Sandbox.Timedout' });
  });

  it('gives the handler its remaining time in the context', async () => {
    const run = localFunction(
      { id: 'Timed', uses: [], timeoutSeconds: 25 },
      async () => async (_event, context) => context.getRemainingTimeInMillis(),
    );
    const remaining = await run({});
    expect(remaining).toBeLessThanOrEqual(25_000);
    expect(remaining).toBeGreaterThan(0);
  });
});

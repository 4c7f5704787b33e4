/**
 * A handler run locally as Lambda runs it: it sees only the variables its catalog entry declares
 * (functions/catalog.ts; the others are hidden from its process.env, at load and in every call it makes), and
 * each invocation ends after its own timeout, times LOCAL_TIMEOUT_FACTOR, with Lambda's `Sandbox.Timedout`; it
 * runs only within the function's concurrency (lambda-concurrency.ts), else it is refused with TooManyRequestsException.
 */
import type { Context } from 'aws-lambda';
import { AsyncLocalStorage } from 'node:async_hooks';
import { ENV, providerEnv } from '../../../functions/adapters/runtime/config.js';
import { DEFAULT_TIMEOUT_SECONDS, functionVariables } from '../../../functions/catalog.js';
import type { FunctionDeclaration } from '../../../functions/catalog.js';
import { PROVIDER_NAMES } from '../../../functions/providers/registry.js';
import { lambdaContext } from './lambda-context.js';
import { processConcurrencyLimits } from './lambda-concurrency.js';
import type { ConcurrencyLimits } from './lambda-concurrency.js';

/**
 * The local emulators are slower than AWS, more so on a busy machine: each catalog timeout is multiplied by
 * this (the variable LOCAL_TIMEOUT_FACTOR). 3 gives a default API function the 30 s every handler had locally
 * before timeouts were per function, under which the whole suite passes on a loaded 2-core machine.
 */
export const DEFAULT_LOCAL_TIMEOUT_FACTOR = 3;

export function localTimeoutFactor(): number {
  const raw = process.env['LOCAL_TIMEOUT_FACTOR'];
  const factor = raw === undefined || raw === '' ? DEFAULT_LOCAL_TIMEOUT_FACTOR : Number(raw);
  if (!(factor >= 1)) throw new Error(`LOCAL_TIMEOUT_FACTOR must be a number of at least 1 (got "${raw}")`);
  return factor;
}

/** A function's timeout locally, in ms. */
export function localTimeoutMs(declaration: Pick<FunctionDeclaration, 'timeoutSeconds'>): number {
  return (declaration.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000 * localTimeoutFactor();
}

/**
 * The variables a function must declare to be given: every setting the handlers read (functions/adapters/runtime/config.ts)
 * but those of the runtime itself (region, the SDK's endpoints, the local stack's own switches), which every
 * handler gets, as Lambda gives every function its region.
 */
const RUNTIME_VARIABLES = new Set<string>([
  ENV.region.name,
  ENV.s3Endpoint.name,
  ENV.awsEndpoint.name,
  ENV.s3ForcePathStyle.name,
  ENV.allowLoopbackTargets.name,
  // The local invoke server stands in for Lambda's endpoint, as the emulators for the other services'.
  ENV.lambdaEndpoint.name,
]);
const DECLARED_VARIABLES: readonly string[] = [
  ...Object.values(ENV).map(({ name }) => name),
  ...PROVIDER_NAMES.flatMap((provider) => Object.values(providerEnv(provider)).map(({ name }) => name)),
].filter((name) => !RUNTIME_VARIABLES.has(name));

/** Variables hidden from the function that runs now (none outside any function). */
const hidden = new AsyncLocalStorage<ReadonlySet<string>>();
let installed = false;

/** Puts process.env behind the current function's view: call before any handler loads. */
function installEnvironmentView(): void {
  if (installed) return;
  installed = true;
  const visible = (name: string | symbol) => typeof name !== 'string' || !hidden.getStore()?.has(name);
  process.env = new Proxy(process.env, {
    get: (target, name) => (visible(name) ? Reflect.get(target, name) : undefined),
    has: (target, name) => visible(name) && Reflect.has(target, name),
    ownKeys: (target) => Reflect.ownKeys(target).filter(visible),
    getOwnPropertyDescriptor: (target, name) =>
      visible(name) ? Reflect.getOwnPropertyDescriptor(target, name) : undefined,
    // process.env's own setter: the default would redefine an existing variable with a partial descriptor,
    // which process.env refuses.
    set: (target, name, value) => Reflect.set(target, name, value),
  });
}

/** The variables of `declaration` hidden from it: every declarable one it does not declare. */
export function hiddenVariables(declaration: Pick<FunctionDeclaration, 'uses'>): Set<string> {
  const own = new Set(functionVariables(declaration, true));
  return new Set(DECLARED_VARIABLES.filter((name) => !own.has(name)));
}

export class LocalTimeoutError extends Error {
  override readonly name = 'Sandbox.Timedout';
}

type Handler<E, R> = (event: E, context: Context) => Promise<R>;
/** Invokes the function; `ready()` loads it now (a cold start ahead of the first call). */
export type LocalFunction<E, R> = ((event: E) => Promise<R>) & { ready: () => Promise<void> };

/**
 * `load` (a bundle's or a source's import) run on the first call, in the function's view of the environment
 * (its cold start), and every call in it too, under the function's local timeout and within its concurrency
 * (`limits`: this process's). `functionName` names it in its context (logs, metrics).
 */
export function localFunction<E, R>(
  declaration: Pick<FunctionDeclaration, 'id' | 'uses' | 'timeoutSeconds' | 'reservedConcurrency'>,
  load: () => Promise<Handler<E, R>>,
  functionName: string = declaration.id,
  limits: ConcurrencyLimits = processConcurrencyLimits(),
): LocalFunction<E, R> {
  installEnvironmentView();
  const view = hiddenVariables(declaration);
  const timeoutMs = localTimeoutMs(declaration);
  let handler: Promise<Handler<E, R>> | undefined;
  const loaded = () => hidden.run(view, () => (handler ??= load()));
  const invoke = (event: E) => {
    // Refused before anything runs, a cold start included (Lambda counts the init in the execution).
    const release = limits.acquire(declaration.id, declaration.reservedConcurrency);
    return hidden.run(view, async () => {
      try {
        const run = await loaded();
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            reject(new LocalTimeoutError(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`));
          }, timeoutMs);
          timer.unref();
        });
        // The execution is given back when the handler really ends, not at its timeout: past it, it still runs
        // here (JavaScript cannot stop it) and holds its memory, where Lambda would have stopped it.
        const running = run(event, lambdaContext(functionName, timeoutMs));
        void running.then(release, release);
        try {
          return await Promise.race([running, timedOut]);
        } finally {
          clearTimeout(timer);
        }
      } catch (error) {
        // A load that failed never ran the handler.
        if (!(error instanceof LocalTimeoutError)) release();
        throw error;
      }
    });
  };
  return Object.assign(invoke, { ready: async () => void (await loaded()) });
}

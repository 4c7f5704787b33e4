/**
 * Loads the handlers the local stack runs in-process, from their source entries (lib/routes.ts). They are
 * imported only after the environment is set: they read their config at load time.
 */
import type { Context } from 'aws-lambda';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPOSITORY_ROOT } from '../repository-root.js';
import { lambdaContext } from './lambda-context.js';

export async function loadHandler<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(REPOSITORY_ROOT, entry)).href)) as { handler: T };
  return module.handler;
}

/** A workflow step's handler, imported on its first invocation (as a Lambda cold start would). */
export function lazyStepHandler(entry: string, id: string): (event: unknown) => Promise<unknown> {
  let handler: Promise<(event: unknown, context: Context) => Promise<unknown>> | undefined;
  return async (event: unknown) => {
    handler ??= loadHandler(entry);
    return (await handler)(event, lambdaContext(id, 900_000));
  };
}

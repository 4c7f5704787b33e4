/**
 * Loads handlers: the local stack runs their bundles (lib/ship/build/lambda-bundles.ts), as Lambda does; tests
 * that run a handler in-process may load its source entry. Either is imported only after the environment
 * is set: handlers read their config at load time.
 */
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPOSITORY_ROOT } from '../../ship/repository-root.js';

/** A handler from its source entry (lib/ship/routes.ts), for tests that run it in-process. */
export async function loadHandler<T>(entry: string): Promise<T> {
  const module = (await import(pathToFileURL(join(REPOSITORY_ROOT, entry)).href)) as { handler: T };
  return module.handler;
}

const bundleUrls = new Set<string>();
let hooked = false;

/** Bundles by entry (lib/ship/routes.ts), as lib/ship/build/lambda-bundles.ts lists them. */
export type BundleFiles = Readonly<Record<string, string>>;

/**
 * The handler of `entry` from its bundle, loaded by Node itself. The local stack's processes run on tsx,
 * whose loader would rewrite a bundle's dynamic imports (0.5 s more per bundle) and drop its source map
 * (stack traces in minified code); this hook hands Node the bundle as it is.
 */
export async function loadBundledHandler<T>(bundles: BundleFiles, entry: string): Promise<T> {
  const file = bundles[entry];
  if (!file) throw new Error(`no bundle for ${entry}`);
  const url = pathToFileURL(file).href;
  bundleUrls.add(url);
  if (!hooked) {
    hooked = true;
    registerHooks({
      load: (moduleUrl, context, nextLoad) =>
        bundleUrls.has(moduleUrl)
          ? { format: 'module', source: readFileSync(fileURLToPath(moduleUrl)), shortCircuit: true }
          : nextLoad(moduleUrl, context),
    });
  }
  const module = (await import(url)) as { handler: T };
  return module.handler;
}

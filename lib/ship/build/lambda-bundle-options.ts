/**
 * The esbuild options of every Lambda bundle, written once: lib/ship/build/lambda-bundles.ts builds with them, and
 * both the local stack and CDK (lib/ship/cdk/lambda-code.ts) take that build, so what the tests run is what ships.
 * No aws-cdk-lib here: it takes about 2 s to load, and the local stack starts in 4.
 */
import type { BuildOptions } from 'esbuild';

/** Lets bundled CommonJS dependencies call `require` inside the ESM bundle. */
const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** esbuild's JS API options besides `entryPoints`, `bundle` and `outfile` (`index.mjs`, Lambda's ESM handler file). */
export const LAMBDA_ESBUILD_OPTIONS = {
  platform: 'node',
  format: 'esm',
  // Lambda's nodejs24.x (lib/ship/cdk/service-function.ts); the local stack runs the same bundles on the local node.
  target: 'node24',
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_BANNER },
  minify: true,
  // Off: it took the two largest bundles past the 500 KiB budget (TransferVideo 477 → 503 KiB, DeliverWebhook
  // 479 → 510). Nothing of ours reads a class's or function's own name; error names are string literals.
  keepNames: false,
  sourcemap: true,
  sourcesContent: false,
  // Bundle everything, the AWS SDK included: the versions in package-lock.json are the ones that run.
  external: [],
} satisfies BuildOptions;

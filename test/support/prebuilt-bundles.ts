/**
 * Vitest global setup: the Lambda bundles built once (or found in the cache) before any test file starts.
 * Otherwise the e2e files that start together would each build the same bundles at once.
 */
import { lambdaBundles } from '../../lib/local/lambda-bundles.js';
import { onlyUnitTests } from './run-filters.js';

export default async function setup(): Promise<void> {
  // `vitest run test/unit…` (npm run test:unit) starts no stack: nothing to build.
  if (onlyUnitTests()) return;
  const bundles = await lambdaBundles();
  if (bundles.built)
    console.log(`Built the Lambda bundles for every test file in ${(bundles.ms / 1000).toFixed(1)} s.`);
}

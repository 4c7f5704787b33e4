/**
 * Every upstream provider, listed once. The catalog's provider picklist, the environment each adapter
 * reads, CDK's secret and access, the local stack and the metric dimensions all derive from this list;
 * the adapter and the simulator are keyed by its names, so a missing one fails typechecking.
 */
export const PROVIDERS = {
  ark: {
    label: 'Volcengine Ark / BytePlus ModelArk (Seedance)',
    /** Its variables: `ARK_BASE_URL`, `ARK_API_KEY` (local), `ARK_API_KEY_SECRET_ARN` (AWS). */
    envPrefix: 'ARK',
    defaultBaseUrl: 'https://ark.ap-southeast.bytepluses.com',
  },
} as const;

export type ProviderName = keyof typeof PROVIDERS;
export const PROVIDER_NAMES = Object.keys(PROVIDERS) as [ProviderName, ...ProviderName[]];

// One linter (ESLint + typescript-eslint) and one formatter (Prettier), both run by `npm run lint`.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Layers point inward: core ← adapters ← http/workflow/webhooks; lib and bin may import functions, never the reverse. */
const outside = ['**/lib/**', '**/bin/**', '**/test/**'];
/** A glob of no-restricted-imports as a regular expression for an import() source ('/' written \x2F for esquery). */
const globRegex = (glob) => {
  const body = glob
    .replace(/^\*\*\//, '\u0000')
    .replace(/\/\*\*$/, '\u0001')
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^\\x2F]*')
    .replace(/\//g, '\\x2F');
  return `/${body.replace('\u0000', '(^|\\x2F)').replace('\u0001', '\\x2F')}${glob.endsWith('/**') ? '' : '$'}/`.replace(
    /^\/(?!\()/,
    '/^',
  );
};
/** Static imports, and `import()` too (no-restricted-imports does not see it): both refused across a boundary. */
const boundary = (...patterns) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message: 'crosses a layer boundary' }] }],
  'no-restricted-syntax': [
    'error',
    ...patterns.map((glob) => ({
      selector: `ImportExpression[source.value=${globRegex(glob)}]`,
      message: `import() crosses a layer boundary (${glob})`,
    })),
  ],
});
/** Each provider's folder (docs/providers/README.md): it imports core and its own files, never another provider. */
const providers = readdirSync(new URL('./functions/providers', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const layers = ['**/adapters/**', '**/http/**', '**/workflow/**', '**/webhooks/**'];
/** The adapters' folders besides the wiring and the runtime (docs/architecture.md, "Folders"). */
const unwired = readdirSync(new URL('./functions/adapters', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['wiring', 'runtime'].includes(entry.name))
  .map((entry) => `**/adapters/${entry.name}/**`);
const noDynamoDb = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'].map((name) => ({
  name,
  allowTypeImports: true,
  message: 'DynamoDB is reached through functions/adapters only',
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.data/', 'coverage/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The domain core stays pure: no AWS SDK, no I/O, nothing from the outer layers.
    files: ['functions/core/**/*.ts'],
    rules: boundary(
      ...outside,
      '@aws-sdk/*',
      'node:fs',
      'node:http',
      'node:https',
      'node:net',
      'node:dns',
      ...layers,
      // Core names no provider: it is handed their contracts and adapters.
      '**/providers/**',
    ),
  },
  // Adapters reach the providers through their registry only.
  { files: ['functions/adapters/**/*.ts'], rules: boundary(...outside, '**/providers/*/**', ...layers.slice(1)) },
  ...providers.map((name) => ({
    files: [`functions/providers/${name}/**/*.ts`],
    rules: boundary(
      ...outside,
      ...layers,
      '../registry.js',
      ...providers.filter((other) => other !== name).map((other) => `**/${other}/**`),
    ),
  })),
  {
    files: ['functions/providers/*.ts'],
    rules: boundary(...outside, ...layers),
  },
  // Handlers take their adapters from the wiring (composition roots) and the runtime (settings, logs, metrics).
  { files: ['functions/http/**/*.ts'], rules: boundary(...outside, ...unwired, '**/workflow/**', '**/webhooks/**') },
  { files: ['functions/workflow/**/*.ts'], rules: boundary(...outside, ...unwired, '**/http/**', '**/webhooks/**') },
  { files: ['functions/webhooks/**/*.ts'], rules: boundary(...outside, ...unwired, '**/http/**', '**/workflow/**') },
  // The catalog is plain data: resource names and settings, the providers' registry, nothing that runs.
  {
    files: ['functions/catalog.ts'],
    rules: boundary(...outside, ...unwired, '**/adapters/wiring/**', ...layers.slice(1), '**/providers/*/**'),
  },
  { files: ['lib/**/*.{ts,tsx}', 'bin/**/*.ts'], rules: boundary('**/test/**') },
  // What ships (lib/ship) never needs what runs only on a developer's machine (lib/dev). Each home in lib/ has
  // one job; none imports another that imports it back (docs/architecture.md).
  { files: ['lib/ship/**/*.{ts,tsx}'], rules: boundary('**/test/**', '**/dev/**') },
  { files: ['lib/ship/cdk/**/*.ts'], rules: boundary('**/test/**', '**/dev/**', '**/admin/**', '**/console/**') },
  { files: ['lib/ship/admin/**/*.ts'], rules: boundary('**/test/**', '**/dev/**', '**/cdk/**') },
  // The console runs in a browser: its own files and the pure core's rules (prices, options, statuses).
  {
    files: ['lib/ship/console/src/**/*.{ts,tsx}'],
    rules: boundary(
      '**/test/**',
      '**/dev/**',
      '**/ship/*/**',
      '**/adapters/**',
      ...layers.slice(1),
      '**/providers/**',
      'node:*',
      '@aws-sdk/*',
    ),
  },
  // Local emulation runs what CDK deploys, but reads nothing of CDK's, the console's or the bench's.
  { files: ['lib/dev/local/**/*.ts'], rules: boundary('**/test/**', '**/cdk/**', '**/bench/**', '**/console/**') },
  // The bench drives the local stack and the handlers; it deploys nothing and serves no console.
  { files: ['lib/dev/bench/**/*.ts'], rules: boundary('**/test/**', '**/cdk/**', '**/console/**') },
  // The operator CLI reads and writes data through functions/adapters, as the API does: no DynamoDB command here.
  {
    files: ['lib/ship/admin/**/*.ts', 'bin/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: noDynamoDb }] },
  },
  // Help and usage errors answer at once: what a command needs (the AWS SDK, a bench section, Prettier) is
  // imported when it runs. The admin CLI's entry loads its parser, its help and every command file for help.
  {
    files: ['lib/ship/admin/cli.ts', 'lib/ship/admin/cli/**/*.ts', 'lib/ship/admin/commands/**/*.ts', 'bin/bench.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: noDynamoDb,
          patterns: [
            {
              group: ['**/admin-store.js', '**/adapters/**', '@aws-sdk/*', '**/bench/**', 'prettier'],
              allowTypeImports: true,
              message: 'import it when the command runs (`await import`): help and usage errors need none of it',
            },
          ],
        },
      ],
    },
  },
  // A simulator is its own reading of the provider's documents: nothing from the gateway's code.
  { files: ['lib/dev/simulators/**/*.ts'], rules: boundary('**/test/**', '**/functions/**', '**/ship/**') },
);

// One linter (ESLint + typescript-eslint) and one formatter (Prettier), both run by `npm run lint`.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Layers point inward: core ← adapters ← http/workflow/webhooks; lib and bin may import functions, never the reverse. */
const outside = ['**/lib/**', '**/bin/**', '**/test/**'];
const boundary = (...patterns) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message: 'crosses a layer boundary' }] }],
});

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
      '**/adapters/**',
      '**/http/**',
      '**/workflow/**',
      '**/webhooks/**',
    ),
  },
  {
    files: ['functions/adapters/**/*.ts'],
    rules: boundary(...outside, '**/http/**', '**/workflow/**', '**/webhooks/**'),
  },
  { files: ['functions/http/**/*.ts'], rules: boundary(...outside, '**/workflow/**', '**/webhooks/**') },
  { files: ['functions/workflow/**/*.ts'], rules: boundary(...outside, '**/http/**', '**/webhooks/**') },
  { files: ['functions/webhooks/**/*.ts'], rules: boundary(...outside, '**/http/**', '**/workflow/**') },
  { files: ['lib/**/*.ts', 'bin/**/*.ts'], rules: boundary('**/test/**') },
);

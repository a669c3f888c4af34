import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-test/**',
      'node_modules/**',
      '.tools/**',
      'data/**',
      'bench/results/**',
      'clients/typescript/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
      // Libraries are imported by name (package.json "imports"), never by a path into another library or app.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/libs/**', '**/apps/**', '../../*'],
              message: 'Import a library by its name, #des/<library>; apps import no other app.',
            },
          ],
        },
      ],
    },
  },
  {
    // The domain (ADR 0007): a decider or an event file imports only the kernel and its own
    // feature's deciders and events. Type imports are erased, so they may name anything.
    files: ['libs/*/src/*.decider.ts', 'libs/*/src/*.events.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!#des/kernel$|\\./[\\w.-]+\\.(decider|events)$)',
              allowTypeImports: true,
              message:
                'A decider or event file imports only #des/kernel and its own feature’s deciders and events (no framework, no I/O); `import type` for anything else.',
            },
          ],
        },
      ],
    },
  },
  {
    // A library's index names what it publishes (issue 28): no `export *`.
    files: ['libs/*/src/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: 'Name what the library publishes: export { … } from, never export *.',
        },
        {
          // Another feature reads this one's read models through its published queries
          // (`*.queries.ts`), never by collection name or document id (issue 28).
          selector:
            'ExportNamedDeclaration[source.value=/\\.projection$/] > ExportSpecifier[local.name!=/Projection$/]',
          message:
            "Publish queries (a *.queries.ts file), not collection names or ids: other features must not read this one's collections.",
        },
      ],
    },
  },
  {
    // The kernel depends on nothing.
    files: ['libs/kernel/src/**/*.ts'],
    ignores: ['libs/kernel/src/**/*.spec.ts', 'libs/kernel/src/*.testing.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!\\./)', message: 'The kernel imports nothing but its own files.' }] },
      ],
    },
  },
);

// ESLint for the whole repository (run by `npm run lint`, part of `npm test`). Besides typescript-eslint's
// recommended rules, it holds the layering that ARCHITECTURE.md describes:
//   - src/acp is the protocol core: it imports neither `vscode` nor anything of the host;
//   - src/registry, but for its host side (state.ts, commands.ts), runs in plain Node: no `vscode`;
//   - webview/ reaches src/ only through the shared protocol module (src/chat/protocol.ts);
//   - no import cycles anywhere in src/ or webview/;
//   - shipped code logs through the Logger, never console.
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

const resolver = {
  'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs'] } },
  'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
  'import/extensions': ['.ts', '.tsx', '.js', '.mjs'],
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', 'out/**', 'test-output/**', 'src/acp/schema.gen.ts', '.vscode-test/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    plugins: { import: importPlugin },
    settings: resolver,
    rules: {
      // TypeScript checks these itself, with the project's compiler options.
      'no-undef': 'off',
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // A late-bound reference read by closures before its one assignment is not a constant.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['src/**/*.ts', 'webview/**/*.{ts,tsx}'],
    rules: {
      'import/no-cycle': ['error', { ignoreExternal: true }],
      'no-console': 'error',
    },
  },
  {
    files: ['src/acp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/acp is the protocol core: it runs in plain Node and never imports vscode.' }],
          patterns: [{ regex: '^\\.\\./', message: 'src/acp is the protocol core: it imports nothing of the host.' }],
        },
      ],
    },
  },
  {
    // The registry's reading, downloading, unpacking and installing run in plain Node (unit-tested there); only
    // state.ts and commands.ts belong to the host.
    files: ['src/registry/**/*.ts'],
    ignores: ['src/registry/state.ts', 'src/registry/commands.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'This part of src/registry runs in plain Node; the host side is state.ts and commands.ts.' }] },
      ],
    },
  },
  {
    files: ['webview/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The webview runs in a browser frame: it talks to the host through messages.' }],
          patterns: [
            {
              regex: '^(\\.\\./)+src/(?!chat/protocol$)',
              message: 'webview/ reaches src/ only through the shared protocol module, src/chat/protocol.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.{ts,cjs}', 'scripts/**/*.{mjs,cjs,js}', '*.mjs'],
    rules: {
      // Tests and scripts say what happened on the console, and read loosely typed JSON.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['**/*.{mjs,cjs,js}'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: { 'no-undef': 'error' },
  },
);

// ESLint for the whole repository (run by `npm run lint`, part of `npm test`). Besides typescript-eslint's
// recommended rules, it holds the layering that ARCHITECTURE.md describes:
//   - every row of its "Who may import what" table (LAYERS below), each proven by test/unit/lint/layers.test.ts, and
//     the table itself compared with these rules by test/unit/lint/architecture-table.test.ts;
//   - src/acp is the protocol core: it imports neither `vscode` nor anything of the host;
//   - src/registry, but for its host side (state.ts, commands.ts), runs in plain Node: no `vscode`;
//   - webview/ reaches src/ only through the shared protocol module (src/chat/protocol.ts and src/chat/shared/);
//   - no import cycles anywhere in src/ or webview/, no file of src/ or webview/ over 450 lines, and no function over
//     100 lines without its reason beside it;
//   - shipped code logs through the Logger, never console, and disposes what it holds without loops of its own.
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

/**
 * ARCHITECTURE.md's "Who may import what", row by row: what each host folder may import besides `src/acp`,
 * `src/common` and `src/ids.ts` (which every host folder may), and what it may import only the types of.
 */
const LAYERS = {
  common: { imports: [], types: [] },
  settings: { imports: [], types: ['editor', 'permissions'] },
  editor: { imports: [], types: [] },
  permissions: { imports: ['editor'], types: [] },
  diagnostics: { imports: ['settings'], types: ['agents'] },
  composer: { imports: ['editor'], types: ['chat'] },
  chat: { imports: ['composer', 'editor', 'plans', 'settings'], types: [] },
  checkpoints: { imports: [], types: ['chat', 'composer'] },
  agents: { imports: ['chat', 'settings'], types: ['chats'] },
  registry: { imports: ['settings'], types: ['agents'] },
  history: { imports: ['chat'], types: [] },
  chats: {
    imports: ['agents', 'chat', 'checkpoints', 'editor', 'editorTools', 'history', 'permissions', 'settings'],
    types: ['composer', 'plans'],
  },
  sessions: { imports: ['chats', 'history', 'settings'], types: ['agents', 'chat', 'checkpoints', 'worktrees'] },
  worktrees: { imports: ['agents', 'chats', 'checkpoints', 'settings'], types: ['chat', 'history'] },
  editorTools: { imports: ['settings'], types: [] },
  plans: { imports: [], types: [] },
};
const FOLDERS = ['acp', 'common', ...Object.keys(LAYERS).filter((f) => f !== 'common')];

/** The import rules of one row, for files `depth` folders below src/. */
function layer(folder, { imports, types }, depth) {
  const up = depth === 1 ? '\\.\\./' : '\\.\\./\\.\\./';
  const always = folder === 'common' ? ['acp'] : ['acp', 'common'];
  const forbidden = FOLDERS.filter((f) => f !== folder && !always.includes(f) && !imports.includes(f) && !types.includes(f));
  const why = 'see ARCHITECTURE.md, "Who may import what"';
  return {
    files: [depth === 1 ? `src/${folder}/*.ts` : `src/${folder}/*/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...forbidden.map((f) => ({ regex: `^${up}${f}(/|$)`, message: `src/${folder} may not import src/${f}: ${why}.` })),
            ...types.map((f) => ({
              regex: `^${up}${f}(/|$)`,
              allowTypeImports: true,
              message: `src/${folder} may import only the types of src/${f}: ${why}.`,
            })),
            { regex: `^${up}(core|extension)$`, message: `Nothing imports the entry point or the core's wiring: ${why}.` },
          ],
        },
      ],
    },
  };
}

/**
 * The MCP SDKs are a bundle of their own (src/editorTools/mcp.ts, loaded through mcpLoader.ts, see esbuild.mjs): an
 * import of them, or of mcp.ts, anywhere else would load them with the core again.
 */
const MCP_APART = [
  {
    group: ['@modelcontextprotocol/*', '@agentclientprotocol/sdk/experimental/mcp-server'],
    message: 'The MCP SDKs load apart from the core: import them in src/editorTools/mcp.ts only.',
  },
  { regex: '(^|/)editorTools/mcp$|^\\./mcp$', message: 'src/editorTools/mcp.ts loads apart from the core: reach it through mcpLoader.ts.' },
];

const resolver = {
  'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs'] } },
  'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
  'import/extensions': ['.ts', '.tsx', '.js', '.mjs'],
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', 'out/**', 'test-output/**', 'src/acp/schema.gen.ts', 'src/acp/v2/schema.gen.ts', '.vscode-test/**'] },
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
      // A file past this is doing two jobs. Generated files are left out above (the schema).
      'max-lines': ['error', { max: 450 }],
      // A function past this is doing two jobs; the few that are not say why where they start.
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
      // Owners dispose what they hold through a DisposableStore or disposeAll (common/disposables.ts), which go on
      // past an item that throws and survive a collection that changes under them; never a loop of their own.
      'no-restricted-syntax': [
        'error',
        ...[
          "ForOfStatement CallExpression[callee.property.name='dispose']",
          "CallExpression[callee.property.name='forEach'] > ArrowFunctionExpression CallExpression[callee.property.name='dispose']",
        ].map((selector) => ({
          selector,
          message: 'Dispose what an owner holds with a DisposableStore or disposeAll (src/common/disposables.ts), not a loop.',
        })),
      ],
    },
  },
  ...Object.entries(LAYERS).flatMap(([folder, row]) => [layer(folder, row, 1), layer(folder, row, 2)]),
  {
    // The protocol core has no host helpers to dispose with (it imports nothing of the host): its few owners
    // dispose their own children.
    files: ['src/acp/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // The ids both the entry point and the core need import nothing.
    files: ['src/ids.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ regex: '^\\.', message: 'src/ids.ts imports nothing.' }] }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/acp/**', 'src/editorTools/mcp.ts', 'src/editorTools/mcpLoader.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: MCP_APART }] },
  },
  {
    files: ['src/acp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/acp is the protocol core: it runs in plain Node and never imports vscode.' }],
          patterns: [{ regex: '^\\.\\./', message: 'src/acp is the protocol core: it imports nothing of the host.' }, ...MCP_APART],
        },
      ],
    },
  },
  {
    // The second wire version (src/acp/v2) is part of the core: it may use the rest of src/acp, and nothing above it.
    files: ['src/acp/v2/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/acp is the protocol core: it runs in plain Node and never imports vscode.' }],
          patterns: [{ regex: '^\\.\\./\\.\\./', message: 'src/acp is the protocol core: it imports nothing of the host.' }, ...MCP_APART],
        },
      ],
    },
  },
  {
    // The registry's reading, downloading, unpacking and installing run in plain Node (unit-tested there); only
    // state.ts, commands.ts and its rows (pickItem.ts) belong to the host.
    files: ['src/registry/**/*.ts'],
    ignores: ['src/registry/state.ts', 'src/registry/commands.ts', 'src/registry/pickItem.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'This part of src/registry runs in plain Node; the host side is state.ts, commands.ts and pickItem.ts.' },
          ],
          patterns: MCP_APART,
        },
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
              regex: '^(\\.\\./)+src/(?!chat/protocol$|chat/shared/)',
              message: 'webview/ reaches src/ only through the shared protocol module (src/chat/protocol.ts) and src/chat/shared/.',
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

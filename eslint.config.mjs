// One linter for the whole repo. Type-aware rules need TypeScript's JS API, hence TypeScript 6.0.x (see README).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import layers from './scripts/eslint/code-layering.mjs';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'crypto',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'https',
  'net',
  'os',
  'path',
  'process',
  'stream',
  'tls',
  'url',
  'util',
  'worker_threads',
  'zlib',
];
// Product code (what ships) never imports the tests' code: test/ is not packaged, and its helpers hold open
// doors (fault switches, fixed secrets). Tests (*.test.ts) and testing/ folders of fixtures may.
const noTestImports = {
  regex: '(^|/)test/',
  message: 'Product code may not import from test/ (only tests and testing/ folders may).',
};
const PRODUCT_CODE_IGNORES = ['**/*.test.ts', '**/*.test.tsx', '**/testing/**'];
const electronOnlyInShell = { name: 'electron', message: 'Electron lives in main/electron/ only.' };
const noNodeInBrowserCode = {
  patterns: [
    { group: ['node:*', ...nodeBuiltins], message: 'renderer/ and shared/ run in a browser: no Node modules.' },
    { group: ['electron', 'electron/*'], message: 'Electron lives in main/electron/ only.' },
    { group: ['**/main/**', '../main/*', '../../main/*'], message: 'Talk to the core through shared/contract.ts.' },
    { group: ['better-sqlite3', 'ws', 'oidc-provider', 'openid-client'], message: 'Node-only package.' },
    noTestImports,
  ],
};

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', 'test-results', 'playwright-report', 'test/fixtures'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': 'off',
      // The core must not know Electron exists.
      'no-restricted-imports': ['error', { paths: [electronOnlyInShell] }],
    },
  },
  // Plain-JS scripts carry no types to check against.
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['main/electron/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      // The contract wrapper (ipc.ts) and the preload are the only places that touch IPC directly.
      'no-restricted-syntax': [
        'error',
        { selector: "ImportSpecifier[imported.name='ipcMain']", message: 'Register handlers through ipc.ts.' },
        { selector: "ImportSpecifier[imported.name='ipcRenderer']", message: 'Only preload.ts uses ipcRenderer.' },
        { selector: 'MemberExpression[property.name=/^ipc(Main|Renderer)$/]', message: 'IPC goes through ipc.ts.' },
        {
          selector: "ImportNamespaceSpecifier[parent.source.value='electron']",
          message: 'Import the Electron names you use, so the IPC rule can see them.',
        },
        {
          selector: "ImportDefaultSpecifier[parent.source.value='electron']",
          message: 'Import the Electron names you use, so the IPC rule can see them.',
        },
      ],
    },
  },
  { files: ['main/electron/ipc.ts', 'main/electron/preload.ts'], rules: { 'no-restricted-syntax': 'off' } },
  // main/ (outside the shell) and sandbox/ ship: no Electron, and nothing from test/.
  {
    files: ['main/**/*.ts', 'sandbox/**/*.ts'],
    ignores: [...PRODUCT_CODE_IGNORES, 'main/electron/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [electronOnlyInShell], patterns: [noTestImports] }] },
  },
  {
    files: ['main/electron/**/*.ts'],
    ignores: PRODUCT_CODE_IGNORES,
    rules: { 'no-restricted-imports': ['error', { patterns: [noTestImports] }] },
  },
  {
    files: ['renderer/**/*.{ts,tsx}', 'shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', noNodeInBrowserCode] },
  },
  // Imports go down the layers of main/ (scripts/eslint/code-layers.mjs, README "Layout"); tests may reach anywhere.
  {
    files: ['main/**/*.ts', 'sandbox/**/*.ts', 'shared/**/*.ts'],
    ignores: PRODUCT_CODE_IGNORES,
    plugins: { layers },
    rules: { 'layers/code-layering': 'error' },
  },
  {
    files: ['renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
);

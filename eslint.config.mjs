// One linter for the whole repo. Type-aware rules need TypeScript's JS API, hence TypeScript 6.0.x (see README).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
const noNodeInBrowserCode = {
  patterns: [
    { group: ['node:*', ...nodeBuiltins], message: 'renderer/ and shared/ run in a browser: no Node modules.' },
    { group: ['electron', 'electron/*'], message: 'Electron lives in main/electron/ only.' },
    { group: ['**/main/**', '../main/*', '../../main/*'], message: 'Talk to the core through shared/contract.ts.' },
    { group: ['better-sqlite3', 'ws', 'oidc-provider', 'openid-client'], message: 'Node-only package.' },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', '.native', 'test-results', 'playwright-report', 'test/fixtures'] },
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
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: 'Electron lives in main/electron/ only.' }] },
      ],
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
  {
    files: ['renderer/**/*.{ts,tsx}', 'shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', noNodeInBrowserCode] },
  },
  {
    files: ['renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
);

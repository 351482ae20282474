import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/**
 * The import boundaries are only as good as the lint rules that enforce them. These lint small snippets as if they
 * were files in each folder, with the repository's own config, so a config change that silently drops a rule
 * fails here.
 */

const root = resolve(import.meta.dirname, '../..');
// Probe files do not exist on disk, so the type-aware parser (which needs them in the TS project) is switched off;
// the boundary rules are syntactic and come from the repository's config unchanged.
const eslint = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });

async function ruleIds(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, filePath) });
  if (!result) throw new Error('no lint result');
  const fatal = result.messages.filter((message) => message.fatal);
  if (fatal.length > 0) throw new Error(`could not lint ${filePath}: ${fatal.map((m) => m.message).join('; ')}`);
  return result.messages.map((message) => message.ruleId ?? '(none)');
}

const IPC_MAIN = "import { ipcMain } from 'electron';\nexport const channel = ipcMain.eventNames();\n";
const IPC_RENDERER = "import { ipcRenderer } from 'electron';\nexport const channel = ipcRenderer.eventNames();\n";
const RENAMED = "import { ipcMain as bus } from 'electron';\nexport const channel = bus.eventNames();\n";
const ELECTRON = "import { app } from 'electron';\nexport const name = app.getName();\n";
const NODE_FS = "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n";
/** A planted import of test code, at the right depth for each probe's folder. */
const fromTest = (up: number) =>
  `import { sampleCreateWithClinic } from '${'../'.repeat(up)}test/support/orders.js';\nexport const o = sampleCreateWithClinic;\n`;

describe('the lint rules that keep Electron and IPC in their place', () => {
  it.each([
    ['ipcMain in another shell file', 'main/electron/lint-probe.ts', IPC_MAIN],
    ['ipcRenderer in another shell file', 'main/electron/lint-probe.ts', IPC_RENDERER],
    ['ipcMain under another name', 'main/electron/lint-probe.ts', RENAMED],
  ])('forbid %s', async (_label, file, code) => {
    expect(await ruleIds(file, code)).toContain('no-restricted-syntax');
  });

  it.each([
    ['the core', 'main/core/lint-probe.ts'],
    ['the transports', 'main/transport/lint-probe.ts'],
    [
      'the core host (it runs as a utility process, but reaches Electron only through its parent)',
      'main/host/lint-probe.ts',
    ],
    ['the browser bridge', 'main/bridge/lint-probe.ts'],
    ['shared code', 'shared/lint-probe.ts'],
    ['the renderer', 'renderer/src/lint-probe.ts'],
  ])('forbid Electron in %s', async (_label, file) => {
    expect(await ruleIds(file, ELECTRON)).toContain('no-restricted-imports');
  });

  it.each([
    ['shared code', 'shared/lint-probe.ts'],
    ['the renderer', 'renderer/src/lint-probe.ts'],
  ])('forbid Node modules in %s', async (_label, file) => {
    expect(await ruleIds(file, NODE_FS)).toContain('no-restricted-imports');
  });

  it.each([
    ['ipcMain in ipc.ts', 'main/electron/ipc.ts', IPC_MAIN],
    ['ipcRenderer in preload.ts', 'main/electron/preload.ts', IPC_RENDERER],
    ['Electron in the shell', 'main/electron/lint-probe.ts', ELECTRON],
  ])('allow %s (the rules are not simply rejecting everything)', async (_label, file, code) => {
    const ids = await ruleIds(file, code);
    expect(ids).not.toContain('no-restricted-syntax');
    expect(ids).not.toContain('no-restricted-imports');
  });

  it.each([
    ['the core', 'main/core/lint-probe.ts', 2],
    ['a core capability', 'main/core/outbox/lint-probe.ts', 3],
    ['the CLI', 'main/cli/lint-probe.ts', 2],
    ['the browser bridge', 'main/bridge/lint-probe.ts', 2],
    ['the core host', 'main/host/lint-probe.ts', 2],
    ['the shell', 'main/electron/lint-probe.ts', 2],
    ['the sandbox', 'sandbox/lint-probe.ts', 1],
    ['the sandbox identity server', 'sandbox/identity/lint-probe.ts', 2],
    ['shared code', 'shared/lint-probe.ts', 1],
    ['the renderer', 'renderer/src/lint-probe.ts', 2],
  ])('forbid imports from test/ in %s (it ships; test/ does not)', async (_label, file, up) => {
    expect(await ruleIds(file, fromTest(up))).toContain('no-restricted-imports');
  });

  it.each([
    ['a core test', 'main/core/lint-probe.test.ts', 2],
    ['a testing/ fixture folder', 'main/core/store/testing/lint-probe.ts', 4],
    ['a sandbox test', 'sandbox/lint-probe.test.ts', 1],
    ['test/ itself', 'test/outbox/support/lint-probe.ts', 3],
  ])('allow imports from test/ in %s', async (_label, file, up) => {
    expect(await ruleIds(file, fromTest(up))).not.toContain('no-restricted-imports');
  });
});

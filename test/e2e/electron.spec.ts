import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';
import { REPO_ROOT } from './support/browser-mode.js';

const SKIP_LINE = 'Electron binary not installed (ELECTRON_SKIP_BINARY_DOWNLOAD); skipping';

/** Located from files only, as `npm start` does: importing `electron` would try to download the binary. */
async function electronBinary(): Promise<string | null> {
  const helper = pathToFileURL(join(REPO_ROOT, 'scripts', 'electron-binary.mjs')).href;
  const { electronBinary: find } = (await import(helper)) as { electronBinary: () => string | null };
  return find();
}

test('the desktop app opens its window on the local sandbox', async () => {
  const binary = await electronBinary();
  if (!binary) {
    console.log(SKIP_LINE);
    test.skip(true, SKIP_LINE);
    return;
  }
  test.setTimeout(300_000);
  // better-sqlite3 for Electron's ABI, as `npm start` prepares it (once per Electron version).
  execFileSync(process.execPath, ['scripts/electron-native.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });

  const dataDir = await mkdtemp(join(tmpdir(), 'rxbatch-electron-'));
  const app = await electron.launch({
    executablePath: binary,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), join(REPO_ROOT, 'out', 'main', 'index.js')],
    cwd: REPO_ROOT,
    env: { ...process.env, RXBATCH_DATA_DIR: dataDir },
  });
  try {
    const window = await app.firstWindow();
    await expect(window.getByRole('heading', { level: 1, name: 'Rx Batch' })).toBeVisible();
    await expect(window.getByRole('banner')).toContainText('Desktop app');
    await expect(window.getByRole('row', { name: /Local sandbox/ }).first()).toContainText('Running');
  } finally {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

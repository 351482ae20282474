import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { REPO_ROOT } from './support/browser-mode.js';

/**
 * The desktop app itself, where an Electron binary exists (never on the build machine, which cannot download one:
 * there every test here skips with one line). One app for the file: launch, the first screen, the hardening as the
 * page sees it, the import dialog from the File menu and from the Import screen, paths only for handed-over files.
 */

const SKIP_LINE = 'Electron binary not installed (ELECTRON_SKIP_BINARY_DOWNLOAD); skipping';

/** Located from files only, as `npm start` does: importing `electron` would try to download the binary. */
async function electronBinary(): Promise<string | null> {
  const helper = pathToFileURL(join(REPO_ROOT, 'scripts', 'electron-binary.mjs')).href;
  const { electronBinary: find } = (await import(helper)) as { electronBinary: () => string | null };
  return find();
}

test.describe.configure({ mode: 'serial' });

let app: ElectronApplication | undefined;
let page: Page;
let dataDir: string | undefined;

test.beforeAll(async () => {
  const binary = await electronBinary();
  if (!binary) {
    console.log(SKIP_LINE);
    return;
  }
  test.setTimeout(300_000);
  dataDir = await mkdtemp(join(tmpdir(), 'rxbatch-electron-'));
  app = await electron.launch({
    executablePath: binary,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), join(REPO_ROOT, 'out', 'main', 'index.js')],
    cwd: REPO_ROOT,
    env: { ...process.env, RXBATCH_DATA_DIR: dataDir },
  });
  page = await app.firstWindow();
});

test.afterAll(async () => {
  await app?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test.beforeEach(() => {
  test.skip(!app, SKIP_LINE);
});

test('the desktop app opens its window on the local sandbox', async () => {
  await expect(page.getByRole('heading', { level: 1, name: 'Rx Batch' })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Desktop app');
  await expect(page.getByRole('banner').getByLabel('Environment')).toHaveValue('local-sandbox');
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('row', { name: /Local sandbox/ }).first()).toContainText('Running');
});

test('the page has no Node, one frozen API object, and a strict CSP from the app:// origin', async () => {
  expect(page.url()).toBe('app://rx-batch/');
  const seen = await page.evaluate(async () => ({
    require: typeof (globalThis as { require?: unknown }).require,
    process: typeof (globalThis as { process?: unknown }).process,
    frozen: Object.isFrozen(window.rxBatch),
    keys: Object.keys(window.rxBatch ?? {}).sort(),
    csp: (await fetch('app://rx-batch/')).headers.get('content-security-policy'),
  }));
  expect(seen).toMatchObject({ require: 'undefined', process: 'undefined', frozen: true, keys: ['call', 'on'] });
  expect(seen.csp).toContain("default-src 'none'");
  expect(seen.csp).not.toContain('unsafe-eval');
});

test('the page cannot open windows or navigate away', async () => {
  const opened = await page.evaluate(() => window.open('https://example.com/') === null);
  expect(opened).toBe(true);
  await page.evaluate(() => {
    window.location.href = 'https://example.com/';
  });
  // A round trip through main, which handled will-navigate first, before looking at where the page is.
  await page.evaluate(() => window.rxBatch?.call('app.info', {}));
  expect(page.url()).toBe('app://rx-batch/');
  expect(app?.windows()).toHaveLength(1);
});

test("the File menu's Import Files… opens the native dialog for CSV and HL7 files", async () => {
  const asked = await app?.evaluate(async ({ dialog, Menu }) => {
    let options: Electron.OpenDialogOptions | undefined;
    const original = dialog.showOpenDialog.bind(dialog);
    // The native dialog cannot be driven from a test: record what the app asked for and answer "cancel".
    dialog.showOpenDialog = (...args: unknown[]) => {
      options = args.at(-1) as Electron.OpenDialogOptions;
      return Promise.resolve({ canceled: true, filePaths: [] });
    };
    try {
      Menu.getApplicationMenu()?.getMenuItemById('import-files')?.click();
      await new Promise((resolve) => setImmediate(resolve));
      return options;
    } finally {
      dialog.showOpenDialog = original;
    }
  });
  expect(asked?.properties).toEqual(expect.arrayContaining(['openFile', 'multiSelections']));
  expect(asked?.filters?.[0]?.extensions).toEqual(['csv', 'hl7', 'txt']);
});

test('the page gets a path only for a file the admin handed over, and cannot import any other by path', async () => {
  const seen = await page.evaluate(async () => ({
    frozen: Object.isFrozen(window.rxBatchFiles),
    keys: Object.keys(window.rxBatchFiles ?? {}),
    forged: window.rxBatchFiles?.pathForFile(new File(['x'], 'forged.csv')),
    typed: await window.rxBatch?.call('import.file', { environmentId: 'local-sandbox', path: '/etc/hostname' }),
  }));
  expect(seen).toMatchObject({ frozen: true, keys: ['pathForFile'], forged: '', typed: { ok: false } });
  expect(seen.typed).toMatchObject({ error: { code: 'forbidden' } });
});

test("the Import screen's Choose files… uses the native dialog and imports the chosen file from disk", async () => {
  const chosen = join(REPO_ROOT, 'test', 'fixtures', 'import', 'template-example.csv');
  await app?.evaluate(({ dialog }, file) => {
    const original = dialog.showOpenDialog.bind(dialog);
    // The native dialog cannot be driven from a test: answer this one time with the file, as if the admin chose it.
    dialog.showOpenDialog = () => {
      dialog.showOpenDialog = original;
      return Promise.resolve({ canceled: false, filePaths: [file] });
    };
  }, chosen);
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Import' }).click();
  await page.getByRole('button', { name: 'Choose files…' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Imported 3 orders' })).toContainText('template-example.csv');
});

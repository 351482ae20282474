import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * scripts/security-scan.mjs against small built apps: it must fail on what electronegativity rates high, pass
 * what is explained, and never pass a file it could not read. The real gate runs it over out/ after the build.
 */

const root = resolve(import.meta.dirname, '../..');
let work: string;

const HARDENED_MAIN = `import { app, BrowserWindow, session } from 'electron';
class Launch { #files = []; add(files) { this.#files.push(...(files ?? [])); return this.#files.at(-1)?.length ?? 0; } }
export const launch = new Launch();
app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  const window = new BrowserWindow({
    webPreferences: { preload: 'preload.cjs', contextIsolation: true, sandbox: true, nodeIntegration: false, disableBlinkFeatures: 'Auxclick' },
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  void window.loadURL('app://rx-batch/');
});
`;

const CARELESS_MAIN = `import { app, BrowserWindow } from 'electron';
app.whenReady().then(() => {
  const window = new BrowserWindow({ webPreferences: { contextIsolation: false } });
  void window.loadURL('https://example.com/');
});
`;

const PAGE = `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'">
<title>x</title></head><body></body></html>`;

function builtApp(name: string, main: string, extra: Record<string, string> = {}): string {
  const dir = join(work, name);
  const files = {
    'main/index.js': main,
    'preload/preload.cjs': "require('electron');",
    'renderer/index.html': PAGE,
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function allowList(name: string, allow: Array<{ id: string; file?: string; reason: string }>): string {
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify({ allow }));
  return file;
}

function scan(appDir: string, allow: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['scripts/security-scan.mjs', '--app-dir', appDir, '--allow', allow],
      { cwd: root, timeout: 120_000 },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'rxbatch-scan-test-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.concurrent('the security scan', () => {
  it('passes a hardened app written in modern syntax (which the scanner reads only once lowered)', async () => {
    const result = await scan(builtApp('hardened', HARDENED_MAIN), allowList('empty-1', []));
    expect(result.stderr).not.toContain('UNREADABLE');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('security scan: passed');
  });

  it('fails on unexplained high findings, naming each with its file and original line', async () => {
    const result = await scan(builtApp('careless', CARELESS_MAIN), allowList('empty-2', []));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('UNEXPLAINED: HIGH CONTEXT_ISOLATION_JS_CHECK careless/main/index.js:3');
    expect(result.stderr).toContain('UNEXPLAINED: HIGH LIMIT_NAVIGATION_GLOBAL_CHECK');
  });

  it('passes high findings the allow-list explains, and only those', async () => {
    const reason = 'A fixture: this window only ever shows a bundled page and is never given a preload.';
    const app = builtApp('explained', CARELESS_MAIN);
    const all = await scan(
      app,
      allowList('all', [
        { id: 'CONTEXT_ISOLATION_JS_CHECK', file: 'explained/main/index.js', reason },
        { id: 'LIMIT_NAVIGATION_GLOBAL_CHECK', reason },
      ]),
    );
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('allowed: HIGH CONTEXT_ISOLATION_JS_CHECK');
    const wrongFile = await scan(
      app,
      allowList('wrong-file', [
        { id: 'CONTEXT_ISOLATION_JS_CHECK', file: 'explained/main/other.js', reason },
        { id: 'LIMIT_NAVIGATION_GLOBAL_CHECK', reason },
      ]),
    );
    expect(wrongFile.code).toBe(1);
    expect(wrongFile.stderr).toContain('UNEXPLAINED: HIGH CONTEXT_ISOLATION_JS_CHECK');
  });

  it('fails when a file cannot be read, rather than passing what it never scanned', async () => {
    const app = builtApp('broken', HARDENED_MAIN, { 'renderer/assets/broken.js': 'export const = ;' });
    const result = await scan(app, allowList('empty-3', []));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('UNREADABLE: broken/renderer/assets/broken.js');
  });

  it('refuses an allow-list entry without a real reason', async () => {
    const result = await scan(
      builtApp('hardened-again', HARDENED_MAIN),
      allowList('lazy', [{ id: 'CSP_GLOBAL_CHECK', reason: 'ok' }]),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/allow-list .* is not valid: allow\.0\.reason/);
  });

  it('refuses a folder that holds no built app', async () => {
    const result = await scan(work, allowList('empty-4', []));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run npm run build');
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { calls, type CallHandlers } from '../../shared/contract.js';
import { createCore, type Core } from '../../main/core/app-core.js';
import { MemorySecretStore } from '../../main/core/platform/secret-store.js';
import { buildDesktopHandlers } from '../../main/core/desktop-handlers.js';
import { CoreEvents } from '../../main/core/platform/events.js';
import type { Logger } from '../../main/core/platform/logger.js';
import { DesktopShell, type DesktopShellDeps } from '../../main/electron/desktop-integration.js';
import { LaunchFiles } from '../../main/electron/launch-files.js';
import { PathGrants } from '../../main/electron/path-grants.js';
import { dispatchCall } from '../../main/transport/dispatch.js';
import { handlersWith } from '../support/call-handlers.js';

/**
 * The desktop calls without Electron: the shell's side (`DesktopShell`) with the dialog and the file manager as
 * plain functions, real files in a temp directory, and the calls run through `dispatchCall` as every transport
 * runs them. Browser mode's answers come from a real core built without the desktop.
 */

let root: string;
let logLines: Array<{ message: string; fields: unknown }>;
const logger: Logger = {
  info: (message, fields) => logLines.push({ message, fields }),
  warn: (message, fields) => logLines.push({ message, fields }),
  error: (message, fields) => logLines.push({ message, fields }),
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rxbatch-desktop-'));
  mkdirSync(join(root, 'monday'));
  writeFileSync(join(root, 'monday', 'a.csv'), 'x');
  writeFileSync(join(root, 'monday', 'b.hl7'), 'x');
  writeFileSync(join(root, 'monday', 'photo.jpg'), 'x');
  writeFileSync(join(root, 'single.csv'), 'x');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  logLines = [];
});

function desktopShell(overrides: Partial<DesktopShellDeps> = {}) {
  const events = new CoreEvents();
  const grants = new PathGrants();
  const announced: number[] = [];
  const requested: unknown[] = [];
  events.subscribe('import.requested', (payload) => requested.push(payload));
  const showOpenDialog = vi.fn((_purpose: string) => Promise.resolve<string[]>([]));
  const openPath = vi.fn((_path: string) => Promise.resolve(''));
  const deps: DesktopShellDeps = {
    showOpenDialog,
    openPath,
    confirm: () => Promise.resolve(false),
    showSaveDialog: () => Promise.resolve(null),
    dataDir: join(root, 'data'),
    grants,
    announce: (files) => {
      announced.push(files);
      events.emit('import.requested', { files });
    },
    logger,
    ...overrides,
  };
  const shell = new DesktopShell(deps);
  const handlers: CallHandlers = handlersWith(buildDesktopHandlers(shell));
  const call = (name: string, input: unknown) => dispatchCall(handlers, name, input);
  return { shell, grants, announced, requested, call, showOpenDialog, openPath };
}

describe('files.choose', () => {
  it('shows the files dialog and returns the chosen CSV/HL7 files, each then allowed for import.file', async () => {
    const chosen = [join(root, 'single.csv'), join(root, 'monday', 'photo.jpg')];
    const { call, grants } = desktopShell({ showOpenDialog: () => Promise.resolve(chosen) });
    expect(await call('files.choose', { purpose: 'import' })).toEqual({
      ok: true,
      value: {
        ok: true,
        paths: [join(root, 'single.csv')],
        skipped: [{ name: 'photo.jpg', reason: 'not a CSV or HL7 file' }],
      },
    });
    expect(grants.has(join(root, 'single.csv'), 'import')).toBe(true);
    expect(grants.has(join(root, 'single.csv'), 'watch')).toBe(false);
    expect(grants.has(join(root, 'monday', 'photo.jpg'), 'import')).toBe(false);
    expect(logLines).toEqual([{ message: 'files chosen for import', fields: { files: 1, skipped: 1 } }]);
  });

  it('expands a chosen folder to its own batches', async () => {
    const folder = vi.fn((_purpose: string) => Promise.resolve([join(root, 'monday')]));
    const { call } = desktopShell({ showOpenDialog: folder });
    const result = await call('files.choose', { purpose: 'import-folder' });
    expect(folder).toHaveBeenCalledWith('import-folder');
    expect(result).toMatchObject({
      ok: true,
      value: { ok: true, paths: [join(root, 'monday', 'a.csv'), join(root, 'monday', 'b.hl7')] },
    });
  });

  it('hands back a folder chosen for live intake, itself allowed (not its files), and refuses a file', async () => {
    const folder = join(root, 'monday');
    const { call, grants } = desktopShell({ showOpenDialog: () => Promise.resolve([folder]) });
    expect(await call('files.choose', { purpose: 'intake-folder' })).toEqual({
      ok: true,
      value: { ok: true, paths: [folder], skipped: [] },
    });
    // For watching only: the intake's own dialog is the one way a folder gets moved out of (finding 61).
    expect(grants.has(folder, 'watch')).toBe(true);
    expect(grants.has(folder, 'import')).toBe(false);
    expect(grants.has(join(folder, 'a.csv'), 'watch')).toBe(false);
    const file = desktopShell({ showOpenDialog: () => Promise.resolve([join(root, 'single.csv')]) });
    expect(await file.call('files.choose', { purpose: 'intake-folder' })).toEqual({
      ok: true,
      value: { ok: true, paths: [], skipped: [{ name: 'single.csv', reason: 'It is not a folder.' }] },
    });
    expect(file.grants.size).toBe(0);
  });

  it('gives no paths, and logs nothing, when the admin cancels', async () => {
    const { call, showOpenDialog } = desktopShell();
    expect(await call('files.choose', { purpose: 'import' })).toEqual({
      ok: true,
      value: { ok: true, paths: [], skipped: [] },
    });
    expect(showOpenDialog).toHaveBeenCalledWith('import');
    expect(logLines).toEqual([]);
  });
});

describe('files handed over by the OS (command line, second launch, open-file, File menu)', () => {
  it('are checked, granted, announced with import.requested, and taken once through import.takeRequested', async () => {
    const { shell, call, grants, requested } = desktopShell();
    const launchFiles = new LaunchFiles();
    // The first launch's files arrive before the importer is wired: they wait, then go through the same way.
    launchFiles.add([join(root, 'single.csv')]);
    const handedOver: Array<Promise<void>> = [];
    launchFiles.setHandler((paths) => handedOver.push(shell.requestImport(paths)));
    launchFiles.add([join(root, 'monday'), join(root, 'missing.csv')]);
    await Promise.all(handedOver);

    expect(requested).toEqual([{ files: 1 }, { files: 5 }]);
    const taken = await call('import.takeRequested', {});
    expect(taken).toEqual({
      ok: true,
      value: {
        paths: [join(root, 'single.csv'), join(root, 'monday', 'a.csv'), join(root, 'monday', 'b.hl7')],
        skipped: [
          { name: 'photo.jpg', reason: 'not a CSV or HL7 file' },
          { name: 'missing.csv', reason: 'not found' },
        ],
      },
    });
    expect(grants.has(join(root, 'monday', 'b.hl7'), 'import')).toBe(true);
    expect(grants.has(join(root, 'monday'), 'watch')).toBe(false);
    expect(await call('import.takeRequested', {})).toEqual({ ok: true, value: { paths: [], skipped: [] } });
    // Counts only: no file or folder name reaches the log.
    expect(JSON.stringify(logLines)).not.toMatch(/monday|single|missing/);
  });

  it('announce nothing when nothing was handed over', async () => {
    const { shell, announced } = desktopShell();
    await shell.requestImport([]);
    expect(announced).toEqual([]);
  });
});

describe('app.openDataFolder', () => {
  it('opens the data directory in the file manager', async () => {
    const { call, openPath } = desktopShell();
    expect(await call('app.openDataFolder', {})).toEqual({ ok: true, value: { ok: true } });
    expect(openPath).toHaveBeenCalledWith(join(root, 'data'));
  });

  it('says why, when the system could not open it', async () => {
    const { call } = desktopShell({ openPath: () => Promise.resolve('No application is registered for folders') });
    expect(await call('app.openDataFolder', {})).toEqual({
      ok: true,
      value: {
        ok: false,
        reason: 'failed',
        message: 'The data folder did not open: No application is registered for folders',
      },
    });
  });
});

describe('confirm', () => {
  it('shows the core’s question and logs its kind and the answer only, never its wording', async () => {
    const shown: unknown[] = [];
    const { shell } = desktopShell({
      confirm: (question) => {
        shown.push(question);
        return Promise.resolve(true);
      },
    });
    const question = {
      kind: 'binding-change' as const,
      title: 'Accept more from this sender?',
      message: 'Accept more from EPR-2^CLINIC-B?',
      detail: 'addresses added: 10.9.0.0/16.',
      confirmLabel: 'Change who may send',
    };
    expect(await shell.confirm(question)).toBe(true);
    expect(shown).toEqual([question]);
    expect(logLines).toEqual([{ message: 'sender binding loosened', fields: { confirmed: true } }]);
  });
});

describe('the desktop calls refuse bad payloads before the shell sees them', () => {
  it.each([
    ['files.choose', {}],
    ['files.choose', { purpose: 'anything' }],
    ['files.choose', { purpose: 'import', path: '/etc/passwd' }],
    ['files.choose', 'import'],
    ['import.takeRequested', { paths: ['/etc/passwd'] }],
    ['app.openDataFolder', { path: '/' }],
    ['app.openDataFolder', []],
  ])('%s with %j', async (name, input) => {
    const { call, showOpenDialog, openPath } = desktopShell();
    const result = await call(name, input);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input', message: `invalid input for ${name}` } });
    expect(showOpenDialog).not.toHaveBeenCalled();
    expect(openPath).not.toHaveBeenCalled();
  });
});

describe('browser mode (a core without the desktop)', () => {
  let dataDir: string;
  let core: Core;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-desktop-browser-'));
    core = await createCore({
      dataDir,
      appVersion: '1.0.0',
      transport: 'browser',
      secrets: new MemorySecretStore(),
      logger,
      startLocalSandbox: false,
      startOutbox: false,
    });
  });
  afterAll(async () => {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says in app.info that there are no desktop features', async () => {
    const info = await dispatchCall(core.handlers, 'app.info', {});
    expect(info).toMatchObject({ ok: true, value: { transport: 'browser' } });
    expect(info.ok && 'desktop' in (info.value as object)).toBe(false);
  });

  it('answers the dialog and the data folder with what to do instead, and has no files waiting', async () => {
    expect(await dispatchCall(core.handlers, 'files.choose', { purpose: 'import' })).toEqual({
      ok: true,
      value: {
        ok: false,
        reason: 'desktop-only',
        message: 'File dialogs are part of the desktop app. Here, choose or drop the file on the Import screen.',
      },
    });
    const folder = await dispatchCall(core.handlers, 'app.openDataFolder', {});
    expect(folder).toMatchObject({ ok: true, value: { ok: false, reason: 'desktop-only' } });
    expect(await dispatchCall(core.handlers, 'import.takeRequested', {})).toEqual({
      ok: true,
      value: { paths: [], skipped: [] },
    });
  });

  it('lists the desktop calls in the contract, so every transport checks them', () => {
    expect(Object.keys(calls)).toEqual(
      expect.arrayContaining(['files.choose', 'import.takeRequested', 'app.openDataFolder']),
    );
  });
});

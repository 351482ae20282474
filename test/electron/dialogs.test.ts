import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserWindow, dialog } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const { askConfirm, askPlainTextSecrets, chooseFolder, chooseForImport, chooseImportFiles, chooseSavePath } =
  await import('../../main/electron/dialogs.js');

beforeEach(() => vi.clearAllMocks());

describe('native dialogs', () => {
  it('asks for CSV and HL7 files, several at once, attached to the window', async () => {
    const window = new BrowserWindow({});
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/b/monday.csv', '/b/adt.hl7'] });
    expect(await chooseImportFiles(window as never)).toEqual(['/b/monday.csv', '/b/adt.hl7']);
    const [parent, options] = dialog.showOpenDialog.mock.calls[0] as [unknown, Electron.OpenDialogOptions];
    expect(parent).toBe(window);
    expect(options.properties).toEqual(expect.arrayContaining(['openFile', 'multiSelections']));
    expect(options.properties).not.toContain('openDirectory');
    // Every kind the importer reads, then each kind alone.
    expect(options.filters?.[0]?.extensions).toEqual(['csv', 'tsv', 'txt', 'hl7', 'er7', 'json']);
    expect(options.filters?.slice(1)).toEqual([
      { name: 'CSV', extensions: ['csv', 'tsv'] },
      { name: 'HL7 v2', extensions: ['hl7', 'er7', 'txt'] },
      { name: 'JSON', extensions: ['json'] },
    ]);
  });

  it('asks where to save a log export: the suggested name in Documents, its kind only; null when cancelled', async () => {
    const window = new BrowserWindow({});
    dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: '/home/admin/log.jsonl' });
    expect(
      await chooseSavePath(window as never, { suggestedName: 'rx-batch-log-2026-11-26.jsonl', format: 'jsonl' }),
    ).toBe('/home/admin/log.jsonl');
    const [parent, options] = dialog.showSaveDialog.mock.calls[0] as [unknown, Electron.SaveDialogOptions];
    expect(parent).toBe(window);
    expect(options.defaultPath).toBe('/nonexistent/Documents/rx-batch-log-2026-11-26.jsonl');
    expect(options.filters).toEqual([{ name: 'JSON Lines', extensions: ['jsonl'] }]);
    expect(options.properties).toContain('showOverwriteConfirmation');
    dialog.showSaveDialog.mockResolvedValueOnce({ canceled: true, filePath: '/ignored.csv' });
    expect(await chooseSavePath(window as never, { suggestedName: 'log.csv', format: 'csv' })).toBeNull();
  });

  it('returns no files when the admin cancels', async () => {
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: ['/ignored.csv'] });
    expect(await chooseImportFiles(new BrowserWindow({}) as never)).toEqual([]);
  });

  it('asks for one folder', async () => {
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/batches'] });
    expect(await chooseFolder(new BrowserWindow({}) as never, 'Import a folder')).toBe('/batches');
    const options = dialog.showOpenDialog.mock.calls[0]?.[1] as Electron.OpenDialogOptions;
    expect(options.properties).toContain('openDirectory');
    expect(options.properties).not.toContain('multiSelections');
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    expect(await chooseFolder(new BrowserWindow({}) as never, 'Import a folder')).toBeUndefined();
  });

  it("answers files.choose's two purposes with the files dialog or the folder dialog", async () => {
    const window = new BrowserWindow({}) as never;
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/b/a.csv', '/b/b.csv'] });
    expect(await chooseForImport(window, 'import')).toEqual(['/b/a.csv', '/b/b.csv']);
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/b'] });
    expect(await chooseForImport(window, 'import-folder')).toEqual(['/b']);
    const [files, folder] = dialog.showOpenDialog.mock.calls.map((call) => call[1] as Electron.OpenDialogOptions);
    expect(files?.properties).toContain('multiSelections');
    expect(folder?.properties).toContain('openDirectory');
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    expect(await chooseForImport(window, 'import-folder')).toEqual([]);
  });

  it('makes "this session only" the default answer to the plain-text warning', async () => {
    dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: true });
    expect(await askPlainTextSecrets('No keyring.')).toEqual({ accept: false, remember: false });
    const options = dialog.showMessageBox.mock.calls[0]?.[0] as Electron.MessageBoxOptions;
    expect(options.type).toBe('warning');
    expect(options.defaultId).toBe(0);
    expect(options.cancelId).toBe(0);
    expect(options.detail).toContain('No keyring.');
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: true });
    expect(await askPlainTextSecrets('No keyring.')).toEqual({ accept: true, remember: true });
  });

  it('asks the core’s question as it is worded: Cancel the default, its label on the other button', async () => {
    const window = new BrowserWindow({});
    const question = {
      kind: 'removal' as const,
      title: 'Remove this environment?',
      message: 'Remove "Staging"?',
      detail: 'Removing Staging signs it out. It has no orders.',
      confirmLabel: 'Remove environment',
    };
    dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
    expect(await askConfirm(window as never, question)).toBe(false);
    const [parent, options] = dialog.showMessageBox.mock.calls[0] as [unknown, Electron.MessageBoxOptions];
    expect(parent).toBe(window);
    expect(options).toEqual({
      type: 'warning',
      title: 'Remove this environment?',
      message: 'Remove "Staging"?',
      detail: 'Removing Staging signs it out. It has no orders.',
      buttons: ['Cancel', 'Remove environment'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    });
    // Only the second button goes ahead; with no window the dialog is shown on its own.
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await askConfirm(undefined, question)).toBe(true);
    expect(dialog.showMessageBox.mock.calls[1]?.[0]).toMatchObject({ message: 'Remove "Staging"?' });
  });
});

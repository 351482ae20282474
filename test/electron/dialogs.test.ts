import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserWindow, dialog } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const {
  askBindingChange,
  askIdentityChange,
  askPlainTextSecrets,
  askRemoval,
  askRetention,
  chooseFolder,
  chooseForImport,
  chooseImportFiles,
  chooseSavePath,
} = await import('../../main/electron/dialogs.js');

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
    expect(options.filters?.[0]?.extensions).toEqual(['csv', 'hl7', 'txt']);
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

  it('confirms a re-pointed environment in a native dialog: cancel is the default, the changed addresses shown', async () => {
    const window = new BrowserWindow({});
    const change = {
      name: 'CloudRx production',
      before: {
        apiOrigin: 'https://orderservice.cloudrx.co.uk',
        issuer: 'https://is4.cloudrx.co.uk',
        clientId: 'c1',
        grant: 'client_credentials' as const,
      },
      after: {
        apiOrigin: 'https://orders.elsewhere.example',
        issuer: 'https://is4.cloudrx.co.uk',
        clientId: 'c1',
        grant: 'client_credentials' as const,
      },
    };
    expect(await askIdentityChange(window as never, change)).toBe(false);
    const [parent, options] = dialog.showMessageBox.mock.calls[0] as [unknown, Electron.MessageBoxOptions];
    expect(parent).toBe(window);
    expect(options.defaultId).toBe(0);
    expect(options.cancelId).toBe(0);
    expect(options.detail).toContain(
      'Order Service: https://orderservice.cloudrx.co.uk → https://orders.elsewhere.example',
    );
    expect(options.detail).not.toContain('Identity server:');
    expect(options.detail).toContain('sign this environment out');
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await askIdentityChange(window as never, change)).toBe(true);
  });

  it('asks before an environment is removed, saying what removing does; keeping it is the default', async () => {
    const window = new BrowserWindow({});
    const removal = { name: 'Staging', message: 'Removing Staging signs it out. It has no orders.' };
    dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
    expect(await askRemoval(window as never, removal)).toBe(false);
    const [parent, options] = dialog.showMessageBox.mock.calls[0] as [unknown, Electron.MessageBoxOptions];
    expect(parent).toBe(window);
    expect(options).toMatchObject({ type: 'warning', message: 'Remove "Staging"?', defaultId: 0, cancelId: 0 });
    expect(options.detail).toBe(removal.message);
    expect(options.buttons).toEqual(['Cancel', 'Remove environment']);
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await askRemoval(window as never, removal)).toBe(true);
  });

  it('asks before retention is shortened, saying what it drops; keeping the days is the default', async () => {
    const window = new BrowserWindow({});
    const question = { days: 30, previousDays: 90, message: 'The copies of 2 finished orders in 1 batch are dropped.' };
    dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
    expect(await askRetention(window as never, question)).toBe(false);
    const [parent, options] = dialog.showMessageBox.mock.calls[0] as [unknown, Electron.MessageBoxOptions];
    expect(parent).toBe(window);
    expect(options).toMatchObject({
      type: 'warning',
      message: 'Keep imported file copies for 30 days only?',
      defaultId: 0,
      cancelId: 0,
    });
    expect(options.detail).toBe(question.message);
    expect(options.buttons).toEqual(['Cancel', 'Keep them 30 days']);
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await askRetention(undefined, { ...question, days: 1 })).toBe(true);
    expect(dialog.showMessageBox.mock.calls[1]?.[0]).toMatchObject({ buttons: ['Cancel', 'Keep them 1 day'] });
  });

  it('asks before live intake accepts more from a sender: Cancel the default, the core’s words as the detail', async () => {
    const window = new BrowserWindow({});
    const question = { profile: 'EPR', sender: 'EPR-2^CLINIC-B', message: 'addresses added: 10.9.0.0/16.' };
    dialog.showMessageBox.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
    expect(await askBindingChange(window as never, question)).toBe(false);
    const [parent, options] = dialog.showMessageBox.mock.calls[0] as [unknown, Electron.MessageBoxOptions];
    expect(parent).toBe(window);
    expect(options).toMatchObject({
      type: 'warning',
      message: 'Accept more from EPR-2^CLINIC-B?',
      defaultId: 0,
      cancelId: 0,
    });
    expect(options.detail).toBe(question.message);
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await askBindingChange(undefined, question)).toBe(true);
  });

  it('confirms a new environment with every address it will use', async () => {
    const after = {
      apiOrigin: 'https://orders.example',
      issuer: 'https://id.example',
      clientId: 'c1',
      grant: 'device' as const,
    };
    dialog.showMessageBox.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await askIdentityChange(undefined, { name: 'Supplier', after })).toBe(true);
    const options = dialog.showMessageBox.mock.calls[0]?.[0] as Electron.MessageBoxOptions;
    expect(options.message).toBe('Add "Supplier"?');
    expect(options.detail).toContain('Order Service: https://orders.example');
    expect(options.detail).toContain('Identity server: https://id.example');
    expect(options.cancelId).toBe(0);
  });
});

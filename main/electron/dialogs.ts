import { dialog, type BrowserWindow, type OpenDialogOptions } from 'electron';
import { IMPORT_EXTENSIONS } from './launch-files.js';

/**
 * Native open dialogs. Paths come from the admin's own choice in an OS dialog, never from the page: the renderer
 * can ask for a dialog (`files.choose`) but cannot name a path itself.
 */

export const IMPORT_FILE_FILTERS: OpenDialogOptions['filters'] = [
  { name: 'Prescription batches (CSV, HL7)', extensions: [...IMPORT_EXTENSIONS] },
  { name: 'CSV', extensions: ['csv'] },
  { name: 'HL7 v2', extensions: ['hl7', 'txt'] },
];

/** CSV or HL7 files to import; empty when the admin cancels. */
export async function chooseImportFiles(window: BrowserWindow): Promise<string[]> {
  const result = await dialog.showOpenDialog(window, {
    title: 'Import prescription batches',
    buttonLabel: 'Import',
    properties: ['openFile', 'multiSelections', 'dontAddToRecent'],
    filters: IMPORT_FILE_FILTERS,
  });
  return result.canceled ? [] : result.filePaths;
}

/** A folder (of batches, or to watch); undefined when the admin cancels. */
export async function chooseFolder(window: BrowserWindow, title: string): Promise<string | undefined> {
  const result = await dialog.showOpenDialog(window, {
    title,
    properties: ['openDirectory', 'createDirectory', 'dontAddToRecent'],
  });
  return result.canceled ? undefined : result.filePaths[0];
}

/** The dialog behind `files.choose` and the File menu: CSV/HL7 files, or one folder of them; empty when cancelled. */
export async function chooseForImport(window: BrowserWindow, purpose: 'import' | 'import-folder'): Promise<string[]> {
  if (purpose === 'import') return chooseImportFiles(window);
  const folder = await chooseFolder(window, 'Import a folder of batches');
  return folder ? [folder] : [];
}

/** The warning before sign-ins are stored without encryption; keeping them for this session is the default. */
export async function askPlainTextSecrets(message: string): Promise<{ accept: boolean; remember: boolean }> {
  const { response, checkboxChecked } = await dialog.showMessageBox({
    type: 'warning',
    title: 'Saved sign-ins would not be encrypted',
    message: 'Saved sign-ins would not be encrypted',
    detail: `${message}\n\nWith "This session only", you sign in again each time Rx Batch starts.`,
    buttons: ['This session only', 'Store without encryption'],
    defaultId: 0,
    cancelId: 0,
    checkboxLabel: 'Do not ask again on this computer',
    noLink: true,
  });
  const accept = response === 1;
  return { accept, remember: accept && checkboxChecked };
}

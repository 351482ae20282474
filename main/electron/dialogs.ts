import { join } from 'node:path';
import { app, dialog, type BrowserWindow, type MessageBoxOptions, type OpenDialogOptions } from 'electron';
import type { ChoosePurpose } from '../../shared/desktop-contract.js';
import type { ConfirmQuestion, SaveRequest } from '../core/desktop-handlers.js';
import { IMPORT_EXTENSIONS } from '../../shared/import-files.js';

/**
 * Native open dialogs. Paths come from the admin's own choice in an OS dialog, never from the page: the renderer
 * can ask for a dialog (`files.choose`) but cannot name a path itself.
 */

export const IMPORT_FILE_FILTERS: OpenDialogOptions['filters'] = [
  { name: 'Prescription batches (CSV, HL7)', extensions: [...IMPORT_EXTENSIONS] },
  { name: 'CSV', extensions: ['csv', 'tsv'] },
  { name: 'HL7 v2', extensions: ['hl7', 'er7', 'txt'] },
  { name: 'JSON', extensions: ['json'] },
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

/** The dialog behind `files.choose` and the File menu: CSV/HL7 files, or one folder (of them, or to watch). */
export async function chooseForImport(window: BrowserWindow, purpose: ChoosePurpose): Promise<string[]> {
  if (purpose === 'import') return chooseImportFiles(window);
  const folder = await chooseFolder(
    window,
    purpose === 'intake-folder' ? 'Watch a folder for live intake' : 'Import a folder of batches',
  );
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

/**
 * The confirmation before a change the page must not make alone (an environment added, re-pointed or removed, a
 * shorter retention time, a looser sender binding: confirm-question.ts), in the core's words as they are. Shown by
 * main, so script in the page cannot answer it. Cancel is the default; true only when the admin chose to go ahead.
 */
export async function askConfirm(window: BrowserWindow | undefined, question: ConfirmQuestion): Promise<boolean> {
  const options: MessageBoxOptions = {
    type: 'warning',
    title: question.title,
    message: question.message,
    detail: question.detail,
    buttons: ['Cancel', question.confirmLabel],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  };
  const { response } = window ? await dialog.showMessageBox(window, options) : await dialog.showMessageBox(options);
  return response === 1;
}

const SAVE_FILTERS: Record<SaveRequest['format'], NonNullable<OpenDialogOptions['filters']>> = {
  csv: [{ name: 'CSV', extensions: ['csv'] }],
  jsonl: [{ name: 'JSON Lines', extensions: ['jsonl'] }],
};

/**
 * Where an export goes: the native save dialog, in the Documents folder with the suggested name; null when the admin
 * cancels. Shown by main, so the path is the admin's choice and never the page's.
 */
export async function chooseSavePath(window: BrowserWindow | undefined, request: SaveRequest): Promise<string | null> {
  const options = {
    title: 'Export the log',
    buttonLabel: 'Export',
    defaultPath: join(app.getPath('documents'), request.suggestedName),
    filters: SAVE_FILTERS[request.format],
    properties: ['createDirectory', 'showOverwriteConfirmation', 'dontAddToRecent'] as const,
  };
  const result = window
    ? await dialog.showSaveDialog(window, { ...options, properties: [...options.properties] })
    : await dialog.showSaveDialog({ ...options, properties: [...options.properties] });
  return result.canceled || !result.filePath ? null : result.filePath;
}

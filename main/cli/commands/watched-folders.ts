import { stat } from 'node:fs/promises';
import { modeText, othersWho, ownerWarning } from './file-access.js';

/**
 * `serve --watch` folders, as their permissions leave them. A file in a watched folder is imported as its sender's
 * orders and, under "send valid orders as they arrive", sent to the pharmacy: an account that can write there can
 * send prescriptions, and one that can list it sees the files of patients it holds, and keeps in done/ and
 * failed/ for good (made as private as the folder). The folder is trusted as a whole (docs/security.md), so this
 * is said, not refused: a clinic system writing under an account of its own, through a shared group, is a setup
 * an admin may mean. One line per folder, none when only its owner has access.
 */
export async function watchedFolderWarnings(folders: readonly string[]): Promise<string[]> {
  if (process.platform === 'win32') return [];
  const warnings: string[] = [];
  for (const folder of folders) {
    const info = await stat(folder).catch(() => undefined);
    if (!info?.isDirectory()) continue;
    const said = [ownerWarning(info.uid)].filter((line): line is string => line !== undefined);
    const writers = othersWho(info.mode, 'w');
    if (writers) said.push(`${writers} can put files in it (${modeText(info.mode)}), which are imported as orders`);
    const readers = othersWho(info.mode, 'r');
    if (readers)
      said.push(`${readers} can list it (${modeText(info.mode)}) and read the patient files its modes allow`);
    if (said.length === 0) continue;
    warnings.push(
      `warning: --watch ${folder}: ${said.join('; ')}; chmod 700 it (or 770, with a group of this account and the ` +
        'system that writes there only)',
    );
  }
  return warnings;
}

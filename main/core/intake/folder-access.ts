import { statSync } from 'node:fs';
import { othersAccess } from '../platform/file-access.js';

/**
 * A watched folder as its permissions leave it. A file in it is imported as its sender's orders and, under "send
 * valid orders as they arrive", sent to the pharmacy: an account that can write there can send prescriptions, and
 * one that can list it sees the patients' files it holds, kept in done/ and failed/ for good (made as private as
 * the folder). The folder is trusted as a whole (docs/security.md), so this is said (by `serve` and on the Intake
 * screen), not refused: a clinic system writing under an account of its own, through a shared group, is a setup
 * an admin may mean. Undefined when only its owner has access (and on Windows, whose folders have no such modes).
 */
export function folderAccessWarning(folder: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  let info: { mode: number; uid: number };
  try {
    info = statSync(folder);
  } catch {
    return undefined;
  }
  const said = othersAccess(info, [
    ['w', (who, mode) => `${who} can put files in it (${mode}), which are imported as orders`],
    ['r', (who, mode) => `${who} can list it (${mode}) and read the patient files its modes allow`],
  ]);
  if (said.length === 0) return undefined;
  return `${said.join('; ')}; chmod 700 it (or 770, with a group of this account and the system that writes there only)`;
}

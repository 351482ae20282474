import { statSync } from 'node:fs';
import { modeText, othersWho, ownerWarning } from '../platform/file-access.js';

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
  let mode: number;
  let uid: number;
  try {
    ({ mode, uid } = statSync(folder));
  } catch {
    return undefined;
  }
  const said = [ownerWarning(uid)].filter((line): line is string => line !== undefined);
  const writers = othersWho(mode, 'w');
  if (writers) said.push(`${writers} can put files in it (${modeText(mode)}), which are imported as orders`);
  const readers = othersWho(mode, 'r');
  if (readers) said.push(`${readers} can list it (${modeText(mode)}) and read the patient files its modes allow`);
  if (said.length === 0) return undefined;
  return `${said.join('; ')}; chmod 700 it (or 770, with a group of this account and the system that writes there only)`;
}

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { othersAccess, type AccessPhrase } from '../platform/file-access.js';

/**
 * A watched folder as its permissions leave it. A file in it is imported as its sender's orders and, under "send
 * valid orders as they arrive", sent to the pharmacy: an account that can write there can send prescriptions, and
 * one that can list it sees the patients' files it holds, kept in done/ and failed/ for good (made as private as
 * the folder, but their modes can be changed later, so they are looked at too). The folder is trusted as a whole
 * (docs/security.md), so this is said (by `serve` and on the Intake screen), not refused: a clinic system writing
 * under an account of its own, through a shared group, is a setup an admin may mean. Undefined when only its owner
 * has access (and on Windows, whose folders have no such modes).
 */
export function folderAccessWarning(folder: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const found = [
    { name: 'it', said: accessOf(folder, 'it', WATCHED) },
    { name: 'done/', said: accessOf(join(folder, 'done'), 'done/', kept('done/')) },
    { name: 'failed/', said: accessOf(join(folder, 'failed'), 'failed/', kept('failed/')) },
  ].filter((part) => part.said.length > 0);
  if (found.length === 0) return undefined;
  const names = found.map((part) => part.name);
  const fix = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `${found.flatMap((part) => part.said).join('; ')}; chmod 700 ${fix} (or 770, with a group of this account and the system that writes there only)`;
}

const WATCHED: readonly AccessPhrase[] = [
  ['w', (who, mode) => `${who} can put files in it (${mode}), which are imported as orders`],
  ['r', (who, mode) => `${who} can list it (${mode}) and read the patient files its modes allow`],
];

/** done/ and failed/ keep the folder's files for good: who else may take them away, or list and read them. */
const kept = (name: string): readonly AccessPhrase[] => [
  ['w', (who, mode) => `${who} can add or remove files in ${name} (${mode})`],
  ['r', (who, mode) => `${who} can list ${name} (${mode}) and read the patient files its modes allow`],
];

/** What other accounts may do in `path` (called `name`), in `phrases`; [] when it is not there (done/ at first). */
function accessOf(path: string, name: string, phrases: readonly AccessPhrase[]): string[] {
  let info: { mode: number; uid: number };
  try {
    info = statSync(path);
  } catch {
    return [];
  }
  return othersAccess(info, phrases).map((part) => part.replace(/^it belongs/, `${name} belongs`));
}

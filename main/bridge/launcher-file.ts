import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../core/platform/private-files.js';

/**
 * How the page gets the bridge's launch secret without it ever being on a command line (where every local user
 * can read it in `ps`), in a log or in a child's environment (docs/security.md, finding 4): the host writes a
 * small page, readable by this user only, that forwards the browser to the address with the secret in its
 * fragment, and opens that file. The browser's command line then names only the file.
 */

export const LAUNCHER_FILE = 'open-rx-batch.html';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Writes the launcher into the (0700) data directory as a 0600 file and returns its path. It names the PID of the
 * process that serves it, so another start can tell the launcher of the data directory's owner (`rx-batch serve
 * --ui`: serve-handoff.ts) from one a crash left behind.
 */
export function writeLauncher(dataDir: string, url: string, pid = process.pid): string {
  const file = join(dataDir, LAUNCHER_FILE);
  const href = escapeHtml(url);
  const page = `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta name="rx-batch-pid" content="${pid}">
<meta http-equiv="refresh" content="0;url=${href}">
<title>Opening Rx Batch…</title>
</head>
<body><p><a href="${href}">Open Rx Batch</a></p></body>
</html>
`;
  // Removed first: writeFile's mode applies only to a file it creates.
  rmSync(file, { force: true });
  writeFileSync(file, page, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  return file;
}

export function removeLauncher(dataDir: string): void {
  rmSync(join(dataDir, LAUNCHER_FILE), { force: true });
}

/** The PID the data directory's launcher names, when there is one that names one. */
export function launcherPid(dataDir: string): number | null {
  let page: string;
  try {
    page = readFileSync(join(dataDir, LAUNCHER_FILE), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(/<meta name="rx-batch-pid" content="(\d{1,10})">/.exec(page)?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

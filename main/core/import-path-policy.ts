import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { resolveOwnPath } from './importing/import-source.js';

/**
 * Which files `import.file { path }` may read. The contract is the trust boundary: a caller that can send a
 * well-formed call (script in the page, whoever holds the browser bridge) must still not name `/etc/passwd` or
 * `~/.ssh/id_rsa` and read it back through a mapping profile and the error export (docs/security.md, finding 2).
 */
/**
 * What a path is wanted for: `import` reads it (`import.file`); `watch` has the intake watch it as a folder and
 * move its files into `done/` and `failed/` (`intake.start`). A policy may allow a path for one and not the other.
 */
export const PATH_PURPOSES = ['import', 'watch'] as const;
export type PathPurpose = (typeof PATH_PURPOSES)[number];

export interface ImportPathPolicy {
  /**
   * The path to read when `path` may be imported, with every link on it resolved; undefined when it may not. The
   * answer never depends on whether a refused path exists, so a refusal tells the caller nothing about the file.
   * The importer opens the answer once without following a link and refuses a file that is not the one at that
   * path by then (importing/import-source.ts), so a link or FIFO swapped in after the answer is never read.
   */
  allow(path: string, purpose: PathPurpose): Promise<string | undefined>;
  /** The folders files may be imported from, when the policy is a list of folders (shown on the Import screen). */
  readonly folders?: readonly string[];
}

/** Direct calls (the CLI, tests): the caller is the user at their own command line, whose links are followed. */
export const ANY_PATH: ImportPathPolicy = {
  allow: (path) => (isAbsolute(path) ? resolveOwnPath(path) : Promise.resolve(path)),
};

/** No import by path at all. */
export const NO_PATH: ImportPathPolicy = { allow: () => Promise.resolve(undefined), folders: [] };

function isInside(folder: string, candidate: string): boolean {
  const rel = relative(folder, candidate);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Files inside the given folders only, as the host's command line names them (never the contract). The path is
 * checked as written and again with symbolic links resolved, so a link inside a folder cannot lead out of it;
 * the resolved path is what gets read. Folders that do not exist are refused when the policy is made.
 */
export async function importFolders(folders: readonly string[]): Promise<ImportPathPolicy> {
  const real: string[] = [];
  for (const folder of folders) {
    const resolved = await realpath(resolve(folder)).catch(() => undefined);
    if (!resolved || !(await stat(resolved)).isDirectory()) throw new Error(`${folder} is not a folder`);
    real.push(resolved);
  }
  return {
    folders: real,
    async allow(path) {
      if (!isAbsolute(path) || path.includes('\0')) return undefined;
      const written = resolve(path);
      if (!real.some((folder) => isInside(folder, written))) return undefined;
      const target = await realpath(written).catch(() => undefined);
      return target && real.some((folder) => isInside(folder, target)) ? target : undefined;
    },
  };
}

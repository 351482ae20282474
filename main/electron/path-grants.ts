import type { ImportPathPolicy, PathPurpose } from '../core/import-path-policy.js';
import { resolveOwnPath } from '../core/importing/import-source.js';

/**
 * The paths the page may name, each for what it was handed over for: `import` for files the admin chose, dropped
 * on the page or had the OS hand over (the File menu, the command line, a second launch, macOS `open-file`), read
 * by `import.file`; `watch` only for a folder chosen in the intake's own folder dialog, which `intake.start` may
 * watch and move files out of into `done/` and `failed/`. A drop grants `import` only, so script in the page
 * cannot turn a folder dropped for reading into one whose files it has moved (finding 61). `ipc.ts` refuses an
 * `import.file` whose path is not granted for import, so injected script cannot name `~/.ssh/…` either.
 */

/** Far above what an admin hands over in one session; the oldest are forgotten first. */
const MAX_GRANTS = 10_000;

export class PathGrants {
  readonly #paths = new Map<string, Set<PathPurpose>>();

  add(paths: readonly string[], purpose: PathPurpose): void {
    for (const path of paths) {
      // Re-adding moves a path to the newest end, so the one just chosen is never the one forgotten.
      const purposes = this.#paths.get(path) ?? new Set<PathPurpose>();
      purposes.add(purpose);
      this.#paths.delete(path);
      this.#paths.set(path, purposes);
    }
    for (const oldest of this.#paths.keys()) {
      if (this.#paths.size <= MAX_GRANTS) break;
      this.#paths.delete(oldest);
    }
  }

  /** Exactly as handed over (the page sends back the string it was given), and for this purpose. */
  has(path: string, purpose: PathPurpose): boolean {
    return this.#paths.get(path)?.has(purpose) ?? false;
  }

  get size(): number {
    return this.#paths.size;
  }
}

/**
 * The policy the core asks over the host protocol: a path granted for that purpose, its links followed once (the
 * admin's own choice); the core opens the answer without following any.
 */
export function grantedPaths(grants: PathGrants): ImportPathPolicy {
  return {
    allow: (path, purpose) => (grants.has(path, purpose) ? resolveOwnPath(path) : Promise.resolve(undefined)),
  };
}

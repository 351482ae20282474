/**
 * The file paths the page may import by path: those the admin handed over in this window (an open dialog, a file
 * dropped on the page, the File menu, the command line, a second launch, macOS `open-file`). `ipc.ts` refuses an
 * `import.file` whose path is not here, so script injected into the page cannot name a file (`~/.ssh/…`) and read
 * it back through the preview.
 */

/** Far above what an admin hands over in one session; the oldest are forgotten first. */
const MAX_GRANTS = 10_000;

export class PathGrants {
  readonly #paths = new Set<string>();

  add(paths: readonly string[]): void {
    for (const path of paths) {
      // Re-adding moves a path to the newest end, so the one just chosen is never the one forgotten.
      this.#paths.delete(path);
      this.#paths.add(path);
    }
    for (const oldest of this.#paths) {
      if (this.#paths.size <= MAX_GRANTS) break;
      this.#paths.delete(oldest);
    }
  }

  /** Exactly as handed over: the page sends back the string it was given. */
  has(path: string): boolean {
    return this.#paths.has(path);
  }

  get size(): number {
    return this.#paths.size;
  }
}

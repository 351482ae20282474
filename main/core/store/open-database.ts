import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One better-sqlite3 package, two ABIs. Under Node (tests, CLI, sandbox) the module's own build is used. Under
 * Electron in development, `scripts/electron-native.mjs` compiles a second copy for Electron's ABI into
 * `.native/electron-<abi>/`, and this picks it by `process.versions.modules`, so `npm test` and `npm start`
 * never rebuild over each other. In the packaged app electron-builder has rebuilt node_modules for Electron,
 * so the module's own build is already the right one.
 */
export function nativeBindingPath(root = process.cwd()): string | undefined {
  if (!process.versions.electron) return undefined;
  const candidate = join(root, '.native', `electron-${process.versions.modules}`, 'better_sqlite3.node');
  return existsSync(candidate) ? candidate : undefined;
}

export interface OpenDatabaseOptions {
  readonly?: boolean;
  /** Directory holding `.native/`; defaults to the working directory. */
  root?: string;
}

export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  const nativeBinding = nativeBindingPath(options.root);
  return new Database(file, {
    readonly: options.readonly ?? false,
    ...(nativeBinding ? { nativeBinding } : {}),
  });
}

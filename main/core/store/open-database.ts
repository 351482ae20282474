import Database from 'better-sqlite3';

/**
 * The only place that opens a database. better-sqlite3 13 is an N-API module with prebuilt binaries inside its npm
 * package, so the same file loads under Node (tests, CLI, sandbox) and under Electron (development and the packaged
 * app, where electron-builder unpacks it from the asar archive): no second build for Electron's ABI.
 */
export interface OpenDatabaseOptions {
  readonly?: boolean;
}

export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  return new Database(file, { readonly: options.readonly ?? false });
}

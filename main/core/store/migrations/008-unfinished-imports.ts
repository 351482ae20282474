import type Database from 'better-sqlite3';

/**
 * An import writes its staged orders straight into `staged_orders` as the file streams in (once, instead of into
 * a temp table and then copied), under a batch row marked `importing = 1`. Such a batch is invisible: the batch
 * reads skip it, and nothing else knows its id. The commit that ends the import clears the mark together with the
 * batch's counts and its `batch.imported` audit entry; a cancelled, refused or failed import deletes the batch and
 * its rows, and one left by a process that died is deleted by the next import (see staged-orders-repo.ts).
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE import_batches ADD COLUMN importing INTEGER NOT NULL DEFAULT 0 CHECK (importing IN (0, 1));
`);
}

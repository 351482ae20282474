import type Database from 'better-sqlite3';

/**
 * The batches that MLLP messages recorded after row `afterId` were staged into, newest first, with how many each
 * took: the Intake screen's links. A range of the primary key (rows since the app's intake started), so its cost
 * follows that intake's messages, not the table.
 */
export function batchesFedSince(
  db: Database.Database,
  environmentId: string,
  afterId: number,
  limit: number,
): Array<{ batchId: number; name: string; count: number }> {
  return db
    .prepare(
      `SELECT m.batch_id AS batchId, COALESCE(b.source_file_name, '') AS name, COUNT(*) AS count
         FROM intake_messages m LEFT JOIN import_batches b ON b.id = m.batch_id
        WHERE m.id > ? AND m.environment_id = ? AND m.channel = 'mllp' AND m.batch_id IS NOT NULL
        GROUP BY m.batch_id ORDER BY m.batch_id DESC LIMIT ?`,
    )
    .all(afterId, environmentId, limit) as Array<{ batchId: number; name: string; count: number }>;
}

/** The highest intake message row id so far (0 when none): where an intake started from. */
export function lastIntakeMessageId(db: Database.Database): number {
  const row = db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM intake_messages').get() as { id: number };
  return row.id;
}

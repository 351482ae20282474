import type Database from 'better-sqlite3';
import { APPEND_ONLY_TABLES, DETAILS_WORDS_SQL } from '../migrations/021-compact-audit-log.js';

/**
 * Tampering with the audit log as an attacker with write access to the file would: around its triggers, in the
 * compact form of migration 21 (names and details texts in their own tables, binary links).
 */

/** An entry's stored columns but its seq, for copying one with INSERT … SELECT. */
export const STORED_ENTRY_COLUMNS =
  'at, actor, action, environment, batch_id, order_id, clinic_code, clinic_order_id, clinic_ids, details, detail_values, link, link_scheme, key';

export function dropAuditTriggers(db: Database.Database): void {
  for (const table of APPEND_ONLY_TABLES) {
    db.exec(`DROP TRIGGER IF EXISTS ${table}_no_update; DROP TRIGGER IF EXISTS ${table}_no_delete;`);
  }
  db.exec('DROP TRIGGER IF EXISTS audit_entries_append_at_end');
}

/** The number of a name (action, environment id, key id), stored as the log stores it when it is not there yet. */
export function nameId(db: Database.Database, name: string): number {
  db.prepare('INSERT INTO audit_names (name) VALUES (?) ON CONFLICT (name) DO NOTHING').run(name);
  return db.prepare<[string], number>('SELECT id FROM audit_names WHERE name = ?').pluck().get(name)!;
}

/** The number of a details text, stored as the log stores it when it is not there yet. */
export function detailsId(db: Database.Database, json: string): number {
  db.prepare(
    `INSERT INTO audit_details (json, words) VALUES (@json, ${DETAILS_WORDS_SQL}) ON CONFLICT (json, own_keys) DO NOTHING`,
  ).run({ json });
  return db
    .prepare<[string], number>("SELECT id FROM audit_details WHERE json = ? AND own_keys = ''")
    .pluck()
    .get(json)!;
}

export interface EntryChange {
  detailsJson?: string;
  action?: string;
  /** The new link, as hex. */
  link?: string;
  /** Mark the entry plain (link scheme 1, no key), as a rewrite without the key would. */
  plain?: boolean;
}

/** Rewrites entry `seq` in place (the triggers dropped first). */
export function rewriteEntry(db: Database.Database, seq: number, change: EntryChange): void {
  dropAuditTriggers(db);
  const sets: string[] = [];
  const parameters: Record<string, unknown> = { seq };
  if (change.detailsJson !== undefined) {
    sets.push('details = @details', 'detail_values = NULL');
    parameters.details = detailsId(db, change.detailsJson);
  }
  if (change.action !== undefined) {
    sets.push('action = @action');
    parameters.action = nameId(db, change.action);
  }
  if (change.link !== undefined) {
    sets.push('link = @link');
    parameters.link = Buffer.from(change.link, 'hex');
  }
  if (change.plain) sets.push('link_scheme = 1', 'key = NULL');
  db.prepare(`UPDATE audit_entries SET ${sets.join(', ')} WHERE seq = @seq`).run(parameters);
}

import type Database from 'better-sqlite3';

/**
 * Edit history of staged orders, for undo and redo across a batch and each order's history (issue #13):
 * - `staged_edit_steps`: one row per change the admin made to a batch (an edit of one order, or one find and
 *   replace), in the order made; `state` `done`, `undone` (can be redone) or `dropped` (undone, then a new change was
 *   made: no longer redoable, still in the history). `field` is a find and replace's body path.
 * - `staged_order_edits`: every cell a step changed: the order, the body path, the value before and after (JSON;
 *   NULL for absent), where each came from (provenance JSON), and the problems only the import could see that the
 *   change cleared (`cleared`, restored by an undo) or that the edit itself raised (`raised`, an unreadable value,
 *   restored by a redo). Values are patient data: they stay here, beside the staged bodies, never in the audit log.
 * - `import_batches.discarded_at`: a batch the admin discarded (its staged orders are never accepted).
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE import_batches ADD COLUMN discarded_at TEXT;

CREATE TABLE staged_edit_steps (
  id INTEGER PRIMARY KEY,
  batch_id INTEGER NOT NULL REFERENCES import_batches (id),
  kind TEXT NOT NULL CHECK (kind IN ('edit', 'replace')),
  field TEXT,
  order_count INTEGER NOT NULL CHECK (order_count >= 0),
  cell_count INTEGER NOT NULL CHECK (cell_count >= 0),
  at TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('done', 'undone', 'dropped')),
  undone_at TEXT,
  CHECK ((state = 'done') = (undone_at IS NULL))
) STRICT;
CREATE INDEX staged_edit_steps_by_batch ON staged_edit_steps (batch_id, state, id);

CREATE TABLE staged_order_edits (
  id INTEGER PRIMARY KEY,
  step_id INTEGER NOT NULL REFERENCES staged_edit_steps (id),
  staged_order_id INTEGER NOT NULL REFERENCES staged_orders (id),
  path TEXT NOT NULL,
  old_value TEXT,
  new_value TEXT,
  old_origin TEXT,
  new_origin TEXT,
  cleared TEXT,
  raised TEXT
) STRICT;
CREATE INDEX staged_order_edits_by_step ON staged_order_edits (step_id, staged_order_id);
CREATE INDEX staged_order_edits_by_order ON staged_order_edits (staged_order_id, id);
`);
}

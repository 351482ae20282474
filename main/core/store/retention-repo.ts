import type Database from 'better-sqlite3';
import { STAGED_DAYS_RULE, stagedDaysSchema } from '../../../shared/retention-contract.js';
import { DISPATCHED_STATUSES } from '../../../shared/status.js';
import type { AuditDetails } from '../model/audit-details.js';
import type { AuditRepo } from './audit-repo.js';
import { COMPACT_ROW_SET, OLDER_COMPACTED_WHERE } from './compacted-staged-rows.js';
import { BodyPacking, type BodyPackingStep } from './retention-bodies.js';
import { RetentionPreview, type RetentionDrops } from './retention-preview.js';
import { isoTime } from './time.js';

/**
 * Retention (migration 018): the staging copies of orders that nothing needs any more are compacted in small
 * steps, each its own short transaction, so the submitter's and the screens' work interleaves with them.
 *
 * What may go, and when (`staged_days` after, default 90):
 * - an accepted staged order's copies (imported body, problems, provenance, the original CSV records or HL7
 *   message), once the order it became was accepted that long ago AND is finished: rejected, withdrawn,
 *   cancelled, or at the service with a settled remote status (dispatched, processed, cancelled). Its row stays,
 *   with position, lines and message number, so the order still names where it came from; `orders.source` then
 *   finds no text (as for a JSON import).
 * - a discarded batch's never-accepted staged orders (and their edit cells), that long after the discard.
 * - a finished order's request body, that long after it was accepted, stored packed (losslessly: it reads back as
 *   the same text; retention-bodies.ts).
 * Never: an open order's copies or body (queued, sending, in doubt, held, still tracked, a cancel under way), the
 * staged orders of a batch that can still be accepted, a batch still being imported, the orders themselves,
 * statuses, attempts, or the audit log.
 */

/** Remote statuses after which the service expects nothing more of the order (tracked-orders' SETTLED_STATUSES). */
export const RETENTION_SETTLED_STATUSES: readonly string[] = [...DISPATCHED_STATUSES, 'Cancelled'];

const sqlText = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** An order nothing more will happen to: what retention waits for before it compacts the order's staged copy. */
export const FINISHED_ORDER_WHERE = `(o.state IN ('rejected', 'withdrawn', 'cancelled')
  OR (o.state IN ('created', 'cancel_refused')
    AND coalesce(o.remote_status, '') IN (${RETENTION_SETTLED_STATUSES.map(sqlText).join(', ')})))`;

/**
 * What a run reads, each through an index (a test checks their plans): the batches it is not done with
 * (`import_batches_to_compact`), a window of a batch's positions (`staged_orders_by_position`), their orders by id.
 */
export const RETENTION_READS = {
  nextBatch: `SELECT id, created_at AS createdAt, discarded_at AS discardedAt FROM import_batches
    WHERE compacted_at IS NULL AND id > ? AND created_at < ? AND importing = 0 ORDER BY id LIMIT 1`,
  pick: `SELECT s.id FROM staged_orders s JOIN orders o ON o.id = s.order_id
    WHERE s.batch_id = @batchId AND s.position > @after AND s.position <= @until
      AND s.state = 'accepted' AND s.compacted_at IS NULL AND o.created_at < @cutoff AND ${FINISHED_ORDER_WHERE}
    ORDER BY s.position`,
  stale: `SELECT id FROM staged_orders WHERE batch_id = @batchId AND position > @after AND position <= @until
    AND state = 'staged' ORDER BY position`,
  last: 'SELECT max(position) FROM staged_orders WHERE batch_id = ?',
  /** The window's rows compacted by an earlier version, rewritten in today's smaller form (compacted-staged-rows.ts). */
  older: `SELECT id FROM staged_orders WHERE batch_id = @batchId AND position > @after AND position <= @until
    AND ${OLDER_COMPACTED_WHERE} ORDER BY position`,
  /** The window's staged orders that still hold their copies (accepted ones not compacted, or never accepted). */
  kept: `SELECT count(*) FROM staged_orders WHERE batch_id = @batchId AND position > @after AND position <= @until
    AND compacted_at IS NULL`,
} as const;

export interface RetentionSettings {
  /** Days staged copies are kept once nothing needs them; null: kept for ever. */
  stagedDays: number | null;
  updatedAt: string;
}

export interface BatchToCompact {
  id: number;
  createdAt: string;
  discardedAt: string | null;
}

export interface CompactionStep {
  /** Accepted staged orders whose copies were dropped. */
  compacted: number;
  /** Never-accepted staged orders of a discarded batch deleted. */
  deleted: number;
  /** Where the next step of this batch starts (the last position this one looked at). */
  after: number;
  /** True while the batch has positions this run has not looked at yet. */
  more: boolean;
  /** Staged orders of the window that still hold their copies (open orders, or orders that can still be accepted). */
  kept: number;
  /** True when retention is done with the batch for good (marked, skipped from now on). */
  finished: boolean;
}

export interface VacuumStep {
  /** 'incremental' when freed pages can be given back to the file system; 'none': they stay free in the file. */
  autoVacuum: 'none' | 'full' | 'incremental';
  /** Free pages in the file after the step. */
  freePages: number;
  pageSize: number;
}

const AUTO_VACUUM = ['none', 'full', 'incremental'] as const;

/**
 * A change's audit details: the days now (`retentionDays`) and before (`previousRetentionDays`); a side that is
 * "for ever" has no days, and `outcome` says so.
 */
function changeDetails(
  before: number | null,
  after: number | null,
  via: 'electron' | 'browser' | 'direct' | undefined,
): AuditDetails {
  return {
    ...(after === null ? { outcome: 'kept for ever' } : { retentionDays: after }),
    ...(before === null ? (after === null ? {} : { outcome: 'was kept for ever' }) : { previousRetentionDays: before }),
    ...(via ? { via } : {}),
  };
}

export class RetentionRepo {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #audit: AuditRepo;
  /** Told the staged orders a step rewrote or deleted, so what was derived from them is derived again. */
  readonly #rewritten: (ids: readonly number[]) => void;
  readonly #settings: Database.Statement<[], RetentionSettings>;
  readonly #setDays: Database.Statement<[number | null, string]>;
  readonly #nextBatch: Database.Statement<[number, string], BatchToCompact>;
  readonly #pick: Database.Statement<[Record<string, string | number>], number>;
  readonly #older: Database.Statement<[Record<string, number>], number>;
  /** The statements that rewrite picked rows compactly (prepared at the first step: they need a temp table). */
  #rewrite: ((ids: string, day: string) => number) | undefined;
  readonly #stale: Database.Statement<[Record<string, number>], number>;
  readonly #last: Database.Statement<[number], number | null>;
  readonly #staleEdits: Database.Statement<[string]>;
  readonly #staleRows: Database.Statement<[string]>;
  readonly #kept: Database.Statement<[Record<string, number>], number>;
  readonly #finish: Database.Statement<[string, number]>;
  readonly #bodies: BodyPacking;
  readonly #preview: RetentionPreview;
  readonly #step: Database.Transaction<
    (batch: BatchToCompact, cutoff: string, after: number, limit: number, keptBefore: number) => CompactionStep
  >;

  constructor(
    db: Database.Database,
    now: () => Date,
    audit: AuditRepo,
    rewritten: (ids: readonly number[]) => void = () => undefined,
  ) {
    this.#db = db;
    this.#now = now;
    this.#audit = audit;
    this.#rewritten = rewritten;
    this.#settings = db.prepare(
      'SELECT staged_days AS stagedDays, updated_at AS updatedAt FROM retention_settings WHERE id = 1',
    );
    this.#setDays = db.prepare('UPDATE retention_settings SET staged_days = ?, updated_at = ? WHERE id = 1');
    // import_batches_to_compact: the batches retention is not done with, in id (= import) order.
    this.#nextBatch = db.prepare(RETENTION_READS.nextBatch);
    this.#pick = db.prepare<[Record<string, string | number>], number>(RETENTION_READS.pick).pluck();
    this.#older = db.prepare<[Record<string, number>], number>(RETENTION_READS.older).pluck();
    this.#stale = db.prepare<[Record<string, number>], number>(RETENTION_READS.stale).pluck();
    this.#last = db.prepare<[number], number | null>(RETENTION_READS.last).pluck();
    const picked = 'SELECT value FROM json_each(?)';
    this.#staleEdits = db.prepare(`DELETE FROM staged_order_edits WHERE staged_order_id IN (${picked})`);
    this.#staleRows = db.prepare(`DELETE FROM staged_orders WHERE id IN (${picked})`);
    this.#kept = db.prepare<[Record<string, number>], number>(RETENTION_READS.kept).pluck();
    this.#finish = db.prepare('UPDATE import_batches SET compacted_at = ? WHERE id = ? AND compacted_at IS NULL');
    this.#step = db.transaction((batch, cutoff, after, limit, keptBefore) =>
      this.#stepNow(batch, cutoff, after, limit, keptBefore),
    );
    this.#bodies = new BodyPacking(db, FINISHED_ORDER_WHERE);
    this.#preview = new RetentionPreview(db, FINISHED_ORDER_WHERE);
  }

  settings(): RetentionSettings {
    const row = this.#settings.get();
    if (!row) throw new Error('the store has no retention settings (migration 018 missing)');
    return row;
  }

  /**
   * Days staged copies are kept once nothing needs them (1 to 36,500: shared/retention-contract.ts), or null to keep
   * them for ever. A change is audited (`retention.changed`, the new and the old days) in the same transaction; the
   * same value again changes nothing and appends nothing. Every front end changes it here (the CLI through
   * AppServices' retention, as the Settings screen does).
   */
  setStagedDays(
    days: number | null,
    actor: 'user' | 'system' = 'user',
    via?: 'electron' | 'browser' | 'direct',
  ): RetentionSettings {
    const checked = stagedDaysSchema.safeParse(days);
    if (!checked.success) throw new RangeError(`${STAGED_DAYS_RULE} (null); got ${String(days)}`);
    this.#db
      .transaction(() => {
        const before = this.settings().stagedDays;
        if (before === days) return;
        this.#setDays.run(days, isoTime(this.#now()));
        this.#audit.appendWithin({ actor, action: 'retention.changed', details: changeDetails(before, days, via) });
      })
      .immediate();
    return this.settings();
  }

  /** The time before which staged copies may go, under the current setting; null when they are kept for ever. */
  cutoff(): string | null {
    const days = this.settings().stagedDays;
    return days === null ? null : isoTime(new Date(this.#now().getTime() - days * 86_400_000));
  }

  /**
   * What keeping copies `days` days would drop that the current setting still keeps (nothing when it is not
   * shorter), as the confirmation of a shorter time tells it (retention-preview.ts).
   */
  dropsIfKeptFor(days: number): RetentionDrops {
    const now = this.#now().getTime();
    const at = (kept: number) => isoTime(new Date(now - kept * 86_400_000));
    const current = this.settings().stagedDays;
    return this.#preview.drops(at(days), current === null ? null : at(current));
  }

  /** The next batch after `afterId`, imported before `cutoff`, that retention is not done with. */
  nextBatch(afterId: number, cutoff: string): BatchToCompact | undefined {
    return this.#nextBatch.get(afterId, cutoff);
  }

  /**
   * One short transaction of work on `batch`: its staged orders at positions `after + 1` to `after + limit` (so a
   * step reads at most `limit` of them, whatever the batch's size), compacted or deleted where retention allows.
   * A run starts each batch at 0 and goes on from the step's `after` while `more`, passing the sum of the earlier
   * steps' `kept`: the batch's last step marks it done for good when no staged order of it holds copies any more.
   */
  compactStep(batch: BatchToCompact, cutoff: string, after: number, limit: number, keptBefore: number): CompactionStep {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('a compaction step needs a limit of 1 or more');
    return this.#step.immediate(batch, cutoff, after, limit, keptBefore);
  }

  /**
   * One short transaction packing finished orders' request bodies: the next `limit` orders after id `after` whose
   * body is still text, up to the first accepted after `cutoff`. A run starts at 0 and goes on from `after` while
   * `more`; every step is idempotent.
   */
  packBodiesStep(cutoff: string, after: number, limit: number): BodyPackingStep {
    return this.#bodies.step(cutoff, after, limit);
  }

  #stepNow(batch: BatchToCompact, cutoff: string, after: number, limit: number, keptBefore: number): CompactionStep {
    const window = { batchId: batch.id, after, until: after + limit };
    const ids = this.#pick.all({ ...window, cutoff });
    // Rows an earlier version compacted are rewritten with them, smaller; they had lost their copies already, so
    // they are not counted as compacted (the run's audit entry counts copies dropped).
    const older = this.#older.all(window);
    const rewrite = [...ids, ...older];
    this.#rewritten(rewrite);
    const day = isoTime(this.#now()).slice(0, 10);
    const compacted = rewrite.length === 0 ? 0 : this.#rewriter()(JSON.stringify(rewrite), day) - older.length;
    let deleted = 0;
    const discardedLongAgo = batch.discardedAt !== null && batch.discardedAt < cutoff;
    if (discardedLongAgo) {
      const stale = this.#stale.all(window);
      this.#rewritten(stale);
      const json = JSON.stringify(stale);
      this.#staleEdits.run(json);
      deleted = this.#staleRows.run(json).changes;
    }
    const more = window.until < (this.#last.get(batch.id) ?? 0);
    const kept = this.#kept.get(window) ?? 0;
    // Done for good only when nothing is left that a later run could compact: every accepted copy dropped and no
    // staged order left (one that could still be accepted, or a discarded one not yet old enough). A row counted
    // in an earlier step's window can only have lost its copies since, so the sum is never too low.
    const finished = !more && keptBefore + kept === 0 && this.#finish.run(isoTime(this.#now()), batch.id).changes === 1;
    return { compacted, deleted, after: window.until, more, kept, finished };
  }

  /**
   * Rewrites staged rows without their copies, in the compacted form of compacted-staged-rows.ts. Not an UPDATE: SQLite never merges the pages of rows that shrink in
   * place (measured: 17,771 rows from about 1,330 to 70 bytes left their 41 MB of pages 87% empty), but it does
   * after a DELETE. So each row is copied (every column, whatever migrations add) into a temp table, compacted
   * there, deleted and inserted again under the same id; foreign keys to it (edit cells) are checked at commit.
   */
  #rewriter(): (ids: string, day: string) => number {
    if (this.#rewrite) return this.#rewrite;
    const db = this.#db;
    db.exec('CREATE TEMP TABLE IF NOT EXISTS retention_rows AS SELECT * FROM main.staged_orders WHERE 0');
    const clear = db.prepare('DELETE FROM temp.retention_rows');
    const copy = db.prepare(
      'INSERT INTO temp.retention_rows SELECT * FROM main.staged_orders WHERE id IN (SELECT value FROM json_each(?))',
    );
    const compact = db.prepare(`UPDATE temp.retention_rows SET ${COMPACT_ROW_SET}`);
    const remove = db.prepare('DELETE FROM main.staged_orders WHERE id IN (SELECT id FROM temp.retention_rows)');
    const restore = db.prepare('INSERT INTO main.staged_orders SELECT * FROM temp.retention_rows ORDER BY id');
    this.#rewrite = (ids, day) => {
      db.pragma('defer_foreign_keys = ON');
      clear.run();
      copy.run(ids);
      compact.run({ day });
      remove.run();
      const written = restore.run().changes;
      clear.run();
      return written;
    };
    return this.#rewrite;
  }

  /**
   * Gives up to `pages` free pages back to the file system when the store is in incremental auto-vacuum mode
   * (a short write transaction); otherwise only reports. The file shrinks at the WAL's next checkpoint.
   */
  vacuumStep(pages: number): VacuumStep {
    const mode = AUTO_VACUUM[this.#db.pragma('auto_vacuum', { simple: true }) as number] ?? 'none';
    if (mode === 'incremental' && pages > 0) this.#db.pragma(`incremental_vacuum(${Math.floor(pages)})`);
    return {
      autoVacuum: mode,
      freePages: this.#db.pragma('freelist_count', { simple: true }) as number,
      pageSize: this.#db.pragma('page_size', { simple: true }) as number,
    };
  }

  /**
   * The one-time switch of an existing store to incremental auto-vacuum: SQLite records the mode only when the
   * whole file is rewritten (VACUUM), which holds the store for as long as copying it takes (and needs that much
   * free disk space again). Never run by itself: an explicit maintenance step (see the store README).
   */
  switchToIncrementalVacuum(): VacuumStep {
    this.#db.pragma('auto_vacuum = INCREMENTAL');
    // VACUUM copies the whole store into a temporary database: on disk, not in memory (the store's temp_store).
    // Changing temp_store drops temp tables, so the rewriters' are made again when next needed.
    this.#db.pragma('temp_store = FILE');
    try {
      this.#db.exec('VACUUM');
    } finally {
      this.#db.pragma('temp_store = MEMORY');
      this.#rewrite = undefined;
      this.#bodies.forgetTempTable();
    }
    return this.vacuumStep(0);
  }
}

import type Database from 'better-sqlite3';

/**
 * What a shorter retention time would drop that the current one keeps (so the admin is told before saying yes):
 * counted with the runs' own reads, through the batches retention is not done with (`import_batches_to_compact`)
 * and their staged orders by batch and state, so it costs about what a run's first look does.
 */

export interface RetentionDrops {
  /** Finished orders whose staging copies (source lines or message, body, problems, provenance) would go. */
  orders: number;
  /** The accepted batches those orders came from. */
  batches: number;
  /** When the first and the last of those orders were accepted (ISO); null when there are none. */
  firstAcceptedAt: string | null;
  lastAcceptedAt: string | null;
  /** Never-accepted staged orders of discarded batches that would be deleted, and those batches. */
  discardedOrders: number;
  discardedBatches: number;
}

/**
 * The reads, for an order finished as `finishedWhere` says (retention-repo.ts FINISHED_ORDER_WHERE, over `o`).
 * CROSS JOIN keeps SQLite to this order (batches first): left to choose, it scanned every staged order there is.
 */
export const retentionPreviewReads = (finishedWhere: string) => ({
  accepted: `SELECT count(*) AS orders, count(DISTINCT s.batch_id) AS batches,
      min(o.created_at) AS firstAcceptedAt, max(o.created_at) AS lastAcceptedAt
    FROM import_batches b CROSS JOIN staged_orders s ON s.batch_id = b.id CROSS JOIN orders o ON o.id = s.order_id
    WHERE b.compacted_at IS NULL AND b.importing = 0 AND b.created_at < @cutoff
      AND s.state = 'accepted' AND s.compacted_at IS NULL
      AND o.created_at < @cutoff AND (@keptFrom IS NULL OR o.created_at >= @keptFrom) AND ${finishedWhere}`,
  discarded: `SELECT count(*) AS orders, count(DISTINCT s.batch_id) AS batches
    FROM import_batches b CROSS JOIN staged_orders s ON s.batch_id = b.id
    WHERE b.compacted_at IS NULL AND b.importing = 0 AND b.discarded_at IS NOT NULL AND b.discarded_at < @cutoff
      AND (@keptFrom IS NULL OR b.discarded_at >= @keptFrom) AND s.state = 'staged'`,
});

type Window = { cutoff: string; keptFrom: string | null };

export class RetentionPreview {
  readonly #accepted: Database.Statement<
    [Window],
    { orders: number; batches: number; firstAcceptedAt: string | null; lastAcceptedAt: string | null }
  >;
  readonly #discarded: Database.Statement<[Window], { orders: number; batches: number }>;

  constructor(db: Database.Database, finishedWhere: string) {
    const reads = retentionPreviewReads(finishedWhere);
    this.#accepted = db.prepare(reads.accepted);
    this.#discarded = db.prepare(reads.discarded);
  }

  /**
   * What goes before `cutoff` that is not already due before `keptFrom` (the current setting's cutoff; null when
   * copies are kept for ever): what the change itself drops, not what the next run would drop anyway.
   */
  drops(cutoff: string, keptFrom: string | null): RetentionDrops {
    const window = { cutoff, keptFrom };
    const accepted = this.#accepted.get(window);
    const discarded = this.#discarded.get(window);
    return {
      orders: accepted?.orders ?? 0,
      batches: accepted?.batches ?? 0,
      firstAcceptedAt: accepted?.firstAcceptedAt ?? null,
      lastAcceptedAt: accepted?.lastAcceptedAt ?? null,
      discardedOrders: discarded?.orders ?? 0,
      discardedBatches: discarded?.batches ?? 0,
    };
  }
}

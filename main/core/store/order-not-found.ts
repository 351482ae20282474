import type Database from 'better-sqlite3';
import type { AuditRepo } from './audit-repo.js';
import type { ListedDifferently, NotFoundRun } from './order-records.js';
import type { TransitionAudit } from './order-writes.js';
import { isoTime } from './time.js';

/**
 * The service's "no such order" answers for an order it created (part of `store.orders`; migration 026): counted per
 * run of lookups in a row, flagged once for a person, cleared when a lookup finds the order. Beside them, a lookup
 * that lists the order under other ids (migration 027): noted, and the run of misses ends, since the service did list
 * something. One note or the other, never both: the flag replaces the note, and a note the flag. When to flag and what
 * is listed differently are the tracking's rules (main/core/tracking/lost-at-service.ts, listed-differently.ts); here
 * are only the writes. The state, status and everything else of the order stay as they are.
 */

interface FlaggedRow {
  environmentId: string;
  batchId: number;
  clinicCode: string;
  clinicOrderId: string;
}

const NO_LISTING = 'listed_clinic_order_id = NULL, listed_pharmacy_order_id = NULL, listed_differently_at = NULL';

const IDENTIFIERS = `environment_id AS environmentId, batch_id AS batchId, clinic_code AS clinicCode,
  clinic_order_id AS clinicOrderId`;

export class OrderNotFound {
  readonly #now: () => Date;
  readonly #audit: AuditRepo;
  readonly #miss: Database.Statement<[string, number], { lookups: number; since: string; flaggedAt: string | null }>;
  readonly #flag: Database.Statement<[string, string, number], FlaggedRow>;
  readonly #clearFlagged: Database.Statement<[string, number], FlaggedRow>;
  readonly #clearRun: Database.Statement<[number]>;
  readonly #listed: Database.Statement<
    [string, string | null, string, string, number, string, string | null],
    FlaggedRow
  >;
  readonly #endRun: Database.Statement<[number]>;
  readonly #flagNow: Database.Transaction<(orderId: number, audit: TransitionAudit) => boolean>;
  readonly #clearNow: Database.Transaction<(orderId: number, audit: TransitionAudit) => boolean>;
  readonly #listedNow: Database.Transaction<
    (orderId: number, listed: Omit<ListedDifferently, 'at'>, audit: TransitionAudit) => boolean
  >;

  constructor(db: Database.Database, now: () => Date, audit: AuditRepo) {
    this.#now = now;
    this.#audit = audit;
    // A single miss is no news: neither updated_at nor the audit log moves for it.
    this.#miss = db.prepare(
      `UPDATE orders SET not_found_lookups = not_found_lookups + 1, not_found_since = coalesce(not_found_since, ?)
       WHERE id = ?
       RETURNING not_found_lookups AS lookups, not_found_since AS since, not_found_flagged_at AS flaggedAt`,
    );
    this.#flag = db.prepare(
      `UPDATE orders SET not_found_flagged_at = ?, updated_at = ?, ${NO_LISTING}
       WHERE id = ? AND not_found_lookups > 0 AND not_found_flagged_at IS NULL
       RETURNING ${IDENTIFIERS}`,
    );
    this.#clearFlagged = db.prepare(
      `UPDATE orders SET not_found_lookups = 0, not_found_since = NULL, not_found_flagged_at = NULL, ${NO_LISTING},
         updated_at = ?
       WHERE id = ? AND (not_found_flagged_at IS NOT NULL OR listed_clinic_order_id IS NOT NULL)
       RETURNING ${IDENTIFIERS}`,
    );
    this.#clearRun = db.prepare(
      'UPDATE orders SET not_found_lookups = 0, not_found_since = NULL WHERE id = ? AND not_found_lookups > 0',
    );
    // A listing already noted is no news (as a miss is not): only a new one moves updated_at and the audit log.
    this.#listed = db.prepare(
      `UPDATE orders SET listed_clinic_order_id = ?, listed_pharmacy_order_id = ?, listed_differently_at = ?,
         not_found_lookups = 0, not_found_since = NULL, not_found_flagged_at = NULL, updated_at = ?
       WHERE id = ? AND (listed_clinic_order_id IS NOT ? OR listed_pharmacy_order_id IS NOT ?)
       RETURNING ${IDENTIFIERS}`,
    );
    this.#endRun = db.prepare(
      `UPDATE orders SET not_found_lookups = 0, not_found_since = NULL, not_found_flagged_at = NULL
       WHERE id = ? AND not_found_lookups > 0`,
    );
    this.#flagNow = db.transaction((orderId, audit) => {
      const at = isoTime(this.#now());
      const row = this.#flag.get(at, at, orderId);
      if (row) this.#appendFor(orderId, row, audit);
      return row !== undefined;
    });
    this.#clearNow = db.transaction((orderId, audit) => {
      const row = this.#clearFlagged.get(isoTime(this.#now()), orderId);
      if (row) this.#appendFor(orderId, row, audit);
      else this.#clearRun.run(orderId);
      return row !== undefined;
    });
    this.#listedNow = db.transaction((orderId, listed, audit) => {
      const at = isoTime(this.#now());
      const { clinicOrderId, pharmacyOrderId } = listed;
      const row = this.#listed.get(clinicOrderId, pharmacyOrderId, at, at, orderId, clinicOrderId, pharmacyOrderId);
      if (row) this.#appendFor(orderId, row, audit);
      else this.#endRun.run(orderId);
      return row !== undefined;
    });
  }

  /** One more lookup that did not find the order; the run as it stands after it (undefined: no such order here). */
  recordMiss(orderId: number, at: Date): NotFoundRun | undefined {
    return this.#miss.get(isoTime(at), orderId);
  }

  /** Flags the order's run for a person, with its audit entry; false when already flagged (or there is no run). */
  flag(orderId: number, audit: TransitionAudit): boolean {
    return this.#flagNow.immediate(orderId, audit);
  }

  /**
   * The service found the order: the run ends; true (with its audit entry) when it had been flagged or noted as
   * listed differently.
   */
  clear(orderId: number, audit: TransitionAudit): boolean {
    return this.#clearNow.immediate(orderId, audit);
  }

  /**
   * A lookup listed the order under other ids: noted (replacing a flag), and any run of misses ends. True (with its
   * audit entry) when this listing is new to the order; the same listing again writes nothing but the run's end.
   */
  noteListed(orderId: number, listed: Omit<ListedDifferently, 'at'>, audit: TransitionAudit): boolean {
    return this.#listedNow.immediate(orderId, listed, audit);
  }

  #appendFor(orderId: number, row: FlaggedRow, audit: TransitionAudit): void {
    this.#audit.appendWithin({ ...audit, ...row, orderId });
  }
}

import type Database from 'better-sqlite3';
import { canonicalDetailsJson, checkAuditDetails } from '../audit/audit-details.js';
import {
  AUDIT_ACTION_PATTERN,
  AUDIT_ACTORS,
  auditHash,
  GENESIS_HASH,
  toAuditEntry,
  type AuditEntry,
  type AuditInput,
  type AuditRow,
} from '../audit/audit-entry.js';

const ROW_COLUMNS = `seq, at, actor, action, environment_id AS environmentId, batch_id AS batchId, order_id AS orderId,
  clinic_code AS clinicCode, clinic_order_id AS clinicOrderId, details AS detailsJson, prev_hash AS prevHash, hash`;

/** Appends to and reads the audit chain. Appending is the only write there is. */
export class AuditRepo {
  readonly #now: () => Date;
  readonly #last: Database.Statement<[], { seq: number; hash: string }>;
  readonly #insert: Database.Statement<[AuditRow]>;
  readonly #page: Database.Statement<[number, number, number], AuditRow>;
  readonly #all: Database.Statement<[], AuditRow>;
  readonly #forOrder: Database.Statement<[number], AuditRow>;
  readonly #search: Database.Statement<[Record<string, string | number | null>], AuditRow>;
  readonly #append: Database.Transaction<(input: AuditInput) => AuditRow>;
  readonly #db: Database.Database;

  constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
    this.#last = db.prepare('SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1');
    this.#insert = db.prepare(
      `INSERT INTO audit_entries
         (seq, at, actor, action, environment_id, batch_id, order_id, clinic_code, clinic_order_id, details, prev_hash, hash)
       VALUES (@seq, @at, @actor, @action, @environmentId, @batchId, @orderId, @clinicCode, @clinicOrderId, @detailsJson,
         @prevHash, @hash)`,
    );
    this.#page = db.prepare(`SELECT ${ROW_COLUMNS} FROM audit_entries WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`);
    this.#all = db.prepare(`SELECT ${ROW_COLUMNS} FROM audit_entries ORDER BY seq`);
    this.#forOrder = db.prepare(`SELECT ${ROW_COLUMNS} FROM audit_entries WHERE order_id = ? ORDER BY seq`);
    this.#search = db.prepare(`
      SELECT ${ROW_COLUMNS} FROM audit_entries
      WHERE seq < @beforeSeq
        AND (@environmentId IS NULL OR environment_id = @environmentId)
        AND (@orderId IS NULL OR order_id = @orderId)
        AND (@action IS NULL OR action = @action OR substr(action, 1, length(@action)) = @action)
        AND (@search IS NULL OR instr(lower(coalesce(clinic_code, '') || ' ' || coalesce(clinic_order_id, '') || ' ' ||
          action || ' ' || details), lower(@search)) > 0)
      ORDER BY seq DESC
      LIMIT @limit`);
    this.#append = db.transaction((input: AuditInput) => this.#appendNow(input));
  }

  /**
   * Appends one entry after the last, in a transaction (a savepoint inside the caller's, so a state change and
   * its entry commit together). Throws on an unknown actor, a malformed action or details outside the allow-list.
   */
  append(input: AuditInput): AuditEntry {
    return toAuditEntry(this.#append.immediate(input));
  }

  /**
   * `append` for repositories of this folder already inside their own transaction, which rolls back if this
   * throws: no savepoint of its own, and nothing returned.
   */
  appendWithin(input: AuditInput): void {
    if (!this.#db.inTransaction) throw new Error('appendWithin needs a transaction');
    this.#appendNow(input);
  }

  #appendNow(input: AuditInput): AuditRow {
    if (!(AUDIT_ACTORS as readonly string[]).includes(input.actor))
      throw new Error(`unknown audit actor "${input.actor}"`);
    if (!AUDIT_ACTION_PATTERN.test(input.action) || input.action.length > 64) {
      throw new Error(`audit action "${input.action}" is not of the form word.word`);
    }
    const detailsJson = canonicalDetailsJson(checkAuditDetails(input.details));
    const last = this.#last.get();
    const unhashed: Omit<AuditRow, 'hash'> = {
      seq: (last?.seq ?? 0) + 1,
      at: this.#now().toISOString(),
      actor: input.actor,
      action: input.action,
      environmentId: input.environmentId ?? null,
      batchId: input.batchId ?? null,
      orderId: input.orderId ?? null,
      clinicCode: input.clinicCode ?? null,
      clinicOrderId: input.clinicOrderId ?? null,
      detailsJson,
      prevHash: last?.hash ?? GENESIS_HASH,
    };
    const row: AuditRow = { ...unhashed, hash: auditHash(unhashed) };
    this.#insert.run(row);
    return row;
  }

  lastSeq(): number {
    return this.#last.get()?.seq ?? 0;
  }

  /** Up to `limit` rows after `afterSeq` and at most `upToSeq`: paging never holds the connection between pages. */
  page(afterSeq: number, limit: number, upToSeq = Number.MAX_SAFE_INTEGER): AuditRow[] {
    return this.#page.all(afterSeq, upToSeq, limit);
  }

  /** Every row in seq order. Synchronous: the connection is busy until the iteration ends. */
  rows(): IterableIterator<AuditRow> {
    return this.#all.iterate();
  }

  forOrder(orderId: number): AuditEntry[] {
    return this.#forOrder.all(orderId).map(toAuditEntry);
  }

  /**
   * Newest first, for the log screen: entries before `beforeSeq` (keyset paging), optionally of one environment,
   * one order, or actions starting with `action` (`order.` gives every order action), or with `search` in the
   * clinic code, clinic order id, action or details (case-insensitive).
   */
  search(filter: {
    environmentId?: string;
    orderId?: number;
    action?: string;
    search?: string;
    beforeSeq?: number;
    limit?: number;
  }): AuditEntry[] {
    return this.#search
      .all({
        beforeSeq: filter.beforeSeq ?? Number.MAX_SAFE_INTEGER,
        environmentId: filter.environmentId ?? null,
        orderId: filter.orderId ?? null,
        action: filter.action ?? null,
        search: filter.search ?? null,
        limit: filter.limit ?? 100,
      })
      .map(toAuditEntry);
  }
}

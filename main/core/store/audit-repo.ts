import type Database from 'better-sqlite3';
import {
  AT_TEXT_SQL,
  AUDIT_SEARCH_TEXT,
  DETAILS_WORDS_SQL,
  ENTRY_CLINIC_SQL,
} from './migrations/021-compact-audit-log.js';
import { canonicalDetailsJson, checkAuditDetails } from '../model/audit-details.js';
import { joinDetails, splitCheckedDetails } from './audit-details-split.js';
import {
  AUDIT_ACTION_PATTERN,
  AUDIT_ACTORS,
  auditHash,
  GENESIS_HASH,
  LINK_KEYED_SHORT,
  LINK_PLAIN,
  shortKeyedAuditLink,
  toAuditEntry,
  type AuditEntry,
  type AuditInput,
  type AuditRow,
  type ChainRow,
  type LinkKey,
  type LinkScheme,
} from '../model/audit-entry.js';

/**
 * An entry as the model knows it, read from the compact form (migration 21): names and details text from their
 * tables, the time as the text it was hashed with, the links as hex, the previous link from the previous entry.
 */
const ENTRY_COLUMNS = `a.seq AS seq, ${AT_TEXT_SQL('a.at')} AS at,
  CASE a.actor WHEN 0 THEN 'user' WHEN 1 THEN 'submitter' ELSE 'system' END AS actor,
  (SELECT name FROM audit_names WHERE id = a.action) AS action,
  (SELECT name FROM audit_names WHERE id = a.environment) AS environmentId,
  a.batch_id AS batchId, a.order_id AS orderId, ${ENTRY_CLINIC_SQL('clinic_code')} AS clinicCode,
  ${ENTRY_CLINIC_SQL('clinic_order_id')} AS clinicOrderId,
  (SELECT json FROM audit_details WHERE id = a.details) AS detailsJson,
  (SELECT own_keys FROM audit_details WHERE id = a.details) AS ownKeys, a.detail_values AS detailValues,
  lower(hex(a.link)) AS hash`;
const ROW_COLUMNS = `${ENTRY_COLUMNS}, CASE WHEN a.seq = 1 THEN '${GENESIS_HASH}'
  ELSE coalesce((SELECT lower(hex(p.link)) FROM audit_entries p WHERE p.seq = a.seq - 1), '') END AS prevHash`;

/**
 * What verification reads: `ROW_COLUMNS` but the previous link (the walk has it: the row before's), and how the link
 * was made.
 */
const CHAIN_COLUMNS = `${ENTRY_COLUMNS}, '' AS prevHash, a.link_scheme AS linkScheme,
  (SELECT name FROM audit_names WHERE id = a.key) AS keyId, CASE typeof(a.at) WHEN 'integer' THEN a.at END AS atMs`;

/**
 * What the log screen filters by: one environment, one order, the orders with one clinic order id (exact, through
 * the orders' index), actions starting with `action` (`order.` gives every order action), or `search` in the clinic
 * code, clinic order id or the values of the details (case-insensitive; not the action, which `action` filters, nor
 * the states and operation words nearly every entry holds: migration 21's `UNSEARCHED_DETAIL_KEYS`).
 */
export interface AuditFilter {
  environmentId?: string;
  orderId?: number;
  clinicOrderId?: string;
  action?: string;
  search?: string;
}

interface InsertRow {
  seq: number;
  atMs: number;
  actor: number;
  action: number;
  environment: number | null;
  batchId: number | null;
  orderId: number | null;
  clinicCode: string | null;
  clinicOrderId: string | null;
  clinicIds: 0 | 1;
  details: number;
  detailValues: string | null;
  link: Buffer;
  linkScheme: LinkScheme;
  key: number | null;
}

/**
 * The names and details text an entry refers to, as stored (null where not stored yet, or not given), and the clinic
 * ids of the order it names.
 */
interface Refs {
  action: number | null;
  environment: number | null;
  key: number | null;
  details: number | null;
  orderClinicCode: string | null;
  orderClinicOrderId: string | null;
}

interface RefParameters {
  action: string;
  environment: string | null;
  key: string | null;
  json: string;
  ownKeys: string;
  orderId: number | null;
}

/**
 * How many entries a log-screen search reads one by one at most per call, where no index answers it: the free-text
 * check costs 0.7 µs an entry on a quiet 2-core machine and 2.7 µs at load average 15, so 15 to 55 ms a call.
 */
export const SCAN_WINDOW = 20_000;

/** Appends to and reads the audit chain. Appending is the only write there is. */
export class AuditRepo {
  readonly #now: () => Date;
  readonly #last: Database.Statement<[], { seq: number; hash: string; linkScheme: LinkScheme }>;
  readonly #linkAt: Database.Statement<[number], { hash: string }>;
  readonly #insert: Database.Statement<[InsertRow]>;
  readonly #refs: Database.Statement<[RefParameters], Refs>;
  readonly #addName: Database.Statement<[string]>;
  readonly #addDetails: Database.Statement<[{ json: string; ownKeys: string }]>;
  readonly #page: Database.Statement<[number, number, number], Stored<AuditRow>>;
  readonly #all: Database.Statement<[number], Stored<ChainRow>>;
  readonly #chainPage: Database.Statement<[number, number, number], Stored<ChainRow>>;
  readonly #forOrder: Database.Statement<[number], Stored<AuditRow>>;
  /** The search's statements, one per set of filters in use (see #searchPage). */
  readonly #searches = new Map<string, Database.Statement<[Record<string, string | number>], Stored<AuditRow>>>();
  readonly #actionsFrom: Database.Statement<[string, string], { id: number }>;
  readonly #append: Database.Transaction<(input: AuditInput) => AuditRow>;
  readonly #db: Database.Database;
  /** The key new links are made with; none: plain SHA-256 links (a store opened without its host's key). */
  #key: LinkKey | null = null;
  #onAppend: (() => void) | null = null;
  /** Whether the free-text search's trigram index is there (migration 017), how far it goes, and its filling. */
  readonly #hasSearchIndex: boolean;
  readonly #indexedThrough: Database.Statement<[], { through: number }> | undefined;
  readonly #indexBatch: Database.Transaction<(limit: number) => number> | undefined;
  readonly #searchStructure: Database.Statement<[], { block: Buffer }> | undefined;
  readonly #searchMerge: Database.Statement<[number]> | undefined;

  constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
    this.#last = db.prepare(
      'SELECT seq, lower(hex(link)) AS hash, link_scheme AS linkScheme FROM audit_entries ORDER BY seq DESC LIMIT 1',
    );
    this.#linkAt = db.prepare('SELECT lower(hex(link)) AS hash FROM audit_entries WHERE seq = ?');
    // The time is cast: a JavaScript number would be bound as a real, which the column refuses.
    this.#insert = db.prepare(
      `INSERT INTO audit_entries
         (seq, at, actor, action, environment, batch_id, order_id, clinic_code, clinic_order_id, clinic_ids, details,
          detail_values, link, link_scheme, key)
       VALUES (@seq, CAST(@atMs AS INTEGER), @actor, @action, @environment, @batchId, @orderId, @clinicCode,
         @clinicOrderId, @clinicIds, @details, @detailValues, @link, @linkScheme, @key)`,
    );
    this.#refs = db.prepare(
      `SELECT (SELECT id FROM audit_names WHERE name = @action) AS action,
         (SELECT id FROM audit_names WHERE name = @environment) AS environment,
         (SELECT id FROM audit_names WHERE name = @key) AS key,
         (SELECT id FROM audit_details WHERE json = @json AND own_keys = @ownKeys) AS details,
         (SELECT clinic_code FROM orders WHERE id = @orderId) AS orderClinicCode,
         (SELECT clinic_order_id FROM orders WHERE id = @orderId) AS orderClinicOrderId`,
    );
    this.#addName = db.prepare('INSERT INTO audit_names (name) VALUES (?)');
    this.#addDetails = db.prepare(
      `INSERT INTO audit_details (json, own_keys, words) VALUES (@json, @ownKeys, ${DETAILS_WORDS_SQL})`,
    );
    this.#page = db.prepare(
      `SELECT ${ROW_COLUMNS} FROM audit_entries a WHERE a.seq > ? AND a.seq <= ? ORDER BY a.seq LIMIT ?`,
    );
    this.#all = db.prepare(`SELECT ${CHAIN_COLUMNS} FROM audit_entries a WHERE a.seq > ? ORDER BY a.seq`);
    this.#chainPage = db.prepare(
      `SELECT ${CHAIN_COLUMNS} FROM audit_entries a WHERE a.seq > ? AND a.seq <= ? ORDER BY a.seq LIMIT ?`,
    );
    this.#forOrder = db.prepare(`SELECT ${ROW_COLUMNS} FROM audit_entries a WHERE a.order_id = ? ORDER BY a.seq`);
    // The names an action filter covers (that name and those it begins), found through the names' own index.
    this.#actionsFrom = db.prepare('SELECT id FROM audit_names WHERE name >= ? AND name < ? ORDER BY name');
    this.#append = db.transaction((input: AuditInput) => this.#appendNow(input));
    this.#hasSearchIndex = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'audit_search'").get() !== undefined;
    if (this.#hasSearchIndex) {
      const through = db.prepare<[], { through: number }>(
        'SELECT indexed_through AS through FROM audit_search_progress WHERE id = 1',
      );
      const lastOf = db.prepare<[number, number], { last: number | null }>(
        'SELECT max(seq) AS last FROM (SELECT seq FROM audit_entries WHERE seq > ? ORDER BY seq LIMIT ?)',
      );
      const insert = db.prepare<[number, number]>(
        `INSERT INTO audit_search (rowid, text) SELECT a.seq, ${AUDIT_SEARCH_TEXT} FROM audit_entries a
         WHERE a.seq > ? AND a.seq <= ? ORDER BY a.seq`,
      );
      const mark = db.prepare<[number]>('UPDATE audit_search_progress SET indexed_through = ? WHERE id = 1');
      this.#indexedThrough = through;
      this.#searchStructure = db.prepare('SELECT block FROM audit_search_data WHERE id = 10');
      this.#searchMerge = db.prepare("INSERT INTO audit_search (audit_search, rank) VALUES ('merge', ?)");
      this.#indexBatch = db.transaction((limit: number) => {
        const from = through.get()!.through;
        const last = lastOf.get(from, limit)!.last;
        if (last === null) return 0;
        insert.run(from, last);
        mark.run(last);
        return last - from;
      });
    }
  }

  /**
   * From now on, links are keyed with `key` (see main/core/audit/chain-key.ts), and `onAppend` runs after each
   * append (inside the append's transaction: it must only take note, never do I/O). Set once, by the services
   * when they open, before anything appends.
   */
  useKey(key: LinkKey, onAppend: () => void): void {
    this.#key = key;
    this.#onAppend = onAppend;
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
    const checked = checkAuditDetails(input.details);
    const detailsJson = canonicalDetailsJson(checked);
    const last = this.#last.get();
    const key = this.#key;
    // A plain link after a keyed one is what a rewrite without the key looks like: never write one.
    if (key === null && last !== undefined && last.linkScheme !== LINK_PLAIN) {
      throw new Error('the audit log is keyed: open it with its key to append');
    }
    const now = this.#now();
    const unhashed: Omit<AuditRow, 'hash'> = {
      seq: (last?.seq ?? 0) + 1,
      at: now.toISOString(),
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
    const atMs = now.getTime();
    const row: AuditRow = { ...unhashed, hash: key ? shortKeyedAuditLink(unhashed, atMs, key) : auditHash(unhashed) };
    const details = splitCheckedDetails(checked, detailsJson);
    const wanted: RefParameters = {
      action: row.action,
      environment: row.environmentId,
      key: key?.id ?? null,
      json: details.common,
      ownKeys: details.ownKeys,
      orderId: row.orderId,
    };
    const found = this.#refs.get(wanted)!;
    const refs = this.#stored(found, wanted);
    // The order's own clinic ids are read from the order (migration 21), not kept again.
    const own =
      row.orderId !== null &&
      found.orderClinicCode !== null &&
      found.orderClinicCode === row.clinicCode &&
      found.orderClinicOrderId === row.clinicOrderId;
    this.#insert.run({
      seq: row.seq,
      atMs,
      actor: AUDIT_ACTORS.indexOf(row.actor),
      action: refs.action,
      environment: refs.environment,
      batchId: row.batchId,
      orderId: row.orderId,
      clinicCode: own ? null : row.clinicCode,
      clinicOrderId: own ? null : row.clinicOrderId,
      clinicIds: own ? 1 : 0,
      details: refs.details,
      detailValues: details.values,
      link: Buffer.from(row.hash, 'hex'),
      linkScheme: key ? LINK_KEYED_SHORT : LINK_PLAIN,
      key: refs.key,
    });
    this.#onAppend?.();
    return row;
  }

  /** The numbers of the names and details text `wanted` (as `found` them), storing those not stored yet. */
  #stored(
    found: Refs,
    wanted: RefParameters,
  ): { action: number; environment: number | null; key: number | null; details: number } {
    const name = (id: number | null, text: string | null): number | null =>
      text === null ? null : (id ?? Number(this.#addName.run(text).lastInsertRowid));
    const { json, ownKeys } = wanted;
    return {
      action: name(found.action, wanted.action)!,
      environment: name(found.environment, wanted.environment),
      key: name(found.key, wanted.key),
      details: found.details ?? Number(this.#addDetails.run({ json, ownKeys }).lastInsertRowid),
    };
  }

  lastSeq(): number {
    return this.#last.get()?.seq ?? 0;
  }

  /** The newest entry's seq and link (as this connection sees it: committed, outside a transaction). */
  newest(): { seq: number; link: string } | null {
    const last = this.#last.get();
    return last ? { seq: last.seq, link: last.hash } : null;
  }

  /** The link of entry `seq`, if there is one. */
  linkAt(seq: number): string | null {
    return this.#linkAt.get(seq)?.hash ?? null;
  }

  /** Whether the connection is inside a transaction now (what it reads may not be committed). */
  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  /** Up to `limit` rows after `afterSeq` and at most `upToSeq`: paging never holds the connection between pages. */
  page(afterSeq: number, limit: number, upToSeq = Number.MAX_SAFE_INTEGER): AuditRow[] {
    return this.#page.all(afterSeq, upToSeq, limit).map(fromStored);
  }

  /**
   * Every row after `afterSeq` (default: all) in seq order, with how its link was made. Synchronous: the
   * connection is busy until it ends.
   */
  rows(afterSeq = 0): IterableIterator<ChainRow> {
    return mapIterator(this.#all.iterate(afterSeq), fromStored);
  }

  /** `rows` a page at a time (at most `limit` after `afterSeq`, up to `upToSeq`): the connection is free between. */
  chainPage(afterSeq: number, limit: number, upToSeq = Number.MAX_SAFE_INTEGER): ChainRow[] {
    return this.#chainPage.all(afterSeq, upToSeq, limit).map(fromStored);
  }

  forOrder(orderId: number): AuditEntry[] {
    return this.#forOrder.all(orderId).map((row) => toAuditEntry(fromStored(row)));
  }

  /** Newest first, for the log screen: entries before `beforeSeq` (keyset paging) that match `filter`. */
  search(filter: AuditFilter & { beforeSeq?: number; limit?: number }): AuditEntry[] {
    return this.searchPage(filter).entries;
  }

  /**
   * `search`, reading at most `SCAN_WINDOW` entries of the log where no index answers the filter (free text the
   * trigram index does not hold yet, text shorter than three characters, an environment alone): a page that stops
   * there comes back with fewer than `limit` entries and `resumeBeforeSeq`, where the next call goes on. So no call
   * holds the connection for a scan of the whole history (5.4 s at 7.5 million entries before the trigram index caught up).
   */
  searchPage(
    filter: AuditFilter & { beforeSeq?: number; limit?: number },
    window = SCAN_WINDOW,
  ): {
    entries: AuditEntry[];
    resumeBeforeSeq: number | null;
  } {
    const limit = filter.limit ?? 100;
    const range = { beforeSeq: filter.beforeSeq ?? Number.MAX_SAFE_INTEGER };
    if (filter.action !== undefined)
      return { entries: this.#filtered(filter, range, limit).map(toAuditEntry), resumeBeforeSeq: null };
    const page = this.#newestPage(filter, range.beforeSeq, limit, window);
    return { entries: page.rows.map(toAuditEntry), resumeBeforeSeq: page.resume };
  }

  /**
   * Oldest first, for an export that follows the log screen's filters: up to `limit` matching rows after `afterSeq`
   * and at most `upToSeq` (keyset paging, so the connection is free between pages).
   */
  filteredPage(filter: AuditFilter, afterSeq: number, limit: number, upToSeq = Number.MAX_SAFE_INTEGER): AuditRow[] {
    return this.#filtered(filter, { afterSeq, upToSeq }, limit);
  }

  #filtered(
    filter: AuditFilter,
    range: { beforeSeq: number } | { afterSeq: number; upToSeq: number },
    limit: number,
  ): AuditRow[] {
    if (filter.action === undefined) return this.#searchPage(filter, range, null, limit);
    // An action and every action it begins: each read as a range of (action, seq), then merged. The actions are
    // found in the names' index (a name that is no action finds no entry), not by reading the log.
    const actions = this.#actionsFrom.all(filter.action, `${filter.action}\u{10FFFF}`).map((name) => name.id);
    const rows = actions.flatMap((action) => this.#searchPage(filter, range, action, limit));
    rows.sort('beforeSeq' in range ? (x, y) => y.seq - x.seq : (x, y) => x.seq - y.seq);
    return rows.slice(0, limit);
  }

  /**
   * A newest-first page with no action filter. Through an index (an order, a clinic order id, free text the trigram
   * index holds) it reads only what matches; otherwise it reads back at most `SCAN_WINDOW` entries and says where it
   * stopped (`resume`) when that left the page short.
   */
  #newestPage(
    filter: AuditFilter,
    beforeSeq: number,
    limit: number,
    window: number,
  ): { rows: AuditRow[]; resume: number | null } {
    const indexed = filter.orderId !== undefined || filter.clinicOrderId !== undefined;
    if (indexed || (filter.search === undefined && filter.environmentId === undefined))
      return { rows: this.#searchPage(filter, { beforeSeq }, null, limit), resume: null };
    const match = this.#hasSearchIndex && filter.search !== undefined ? trigramQuery(filter.search) : null;
    const through = match ? this.#indexedThrough!.get()!.through : 0;
    const top = Math.min(beforeSeq, this.lastSeq() + 1);
    // What must be read entry by entry: all of it (an environment alone, text too short for the trigram index), or
    // the entries after the index's mark (the rest is found through the index).
    const scanned = top - 1 - through;
    if (scanned <= window) return { rows: this.#searchPage(filter, { beforeSeq }, null, limit), resume: null };
    const floor = top - window;
    const rows = this.#run(filter, { beforeSeq: top }, null, limit, { above: floor - 1 });
    return { rows, resume: rows.length < limit ? floor : null };
  }

  #searchPage(
    filter: AuditFilter,
    range: { beforeSeq: number } | { afterSeq: number; upToSeq: number },
    action: number | null,
    limit: number,
  ): AuditRow[] {
    // A text of three characters or more is looked up in the trigram index (migration 017) for the entries it holds
    // so far, and matched directly in the few after them; a shorter one is matched by reading the log.
    const match = this.#hasSearchIndex && filter.search !== undefined ? trigramQuery(filter.search) : null;
    if (!match) return this.#run(filter, range, action, limit);
    const through = this.#indexedThrough!.get()!.through;
    if ('beforeSeq' in range) {
      const tail = range.beforeSeq > through + 1 ? this.#run(filter, range, action, limit, { above: through }) : [];
      if (tail.length >= limit) return tail;
      const older = { beforeSeq: Math.min(range.beforeSeq, through + 1) };
      return [...tail, ...this.#run(filter, older, action, limit - tail.length, { match })];
    }
    const indexed =
      range.afterSeq < through
        ? this.#run(filter, { ...range, upToSeq: Math.min(range.upToSeq, through) }, action, limit, { match })
        : [];
    if (indexed.length >= limit) return indexed;
    const after = { afterSeq: Math.max(range.afterSeq, through), upToSeq: range.upToSeq };
    return [...indexed, ...this.#run(filter, after, action, limit - indexed.length)];
  }

  /**
   * One page of the filtered log. `match`: the entries come from the trigram index (every piece of the text), then
   * are checked for the whole text; `above`: only entries after that seq (those the index does not hold yet).
   */
  #run(
    filter: AuditFilter,
    range: { beforeSeq: number } | { afterSeq: number; upToSeq: number },
    action: number | null,
    limit: number,
    how: { match?: string; above?: number } = {},
  ): AuditRow[] {
    const newestFirst = 'beforeSeq' in range;
    const seq = how.match ? 'audit_search.rowid' : 'a.seq';
    const where = newestFirst ? [`${seq} < @beforeSeq`] : [`${seq} > @afterSeq`, `${seq} <= @upToSeq`];
    const parameters: Record<string, string | number> = { ...range, limit };
    const add = (name: string, value: string | number | undefined | null, clause: string) => {
      if (value === undefined || value === null) return;
      parameters[name] = value;
      where.push(clause);
    };
    add('match', how.match, 'audit_search MATCH @match');
    add('above', how.above, 'a.seq > @above');
    add(
      'environmentId',
      filter.environmentId,
      'a.environment = (SELECT id FROM audit_names WHERE name = @environmentId)',
    );
    add('orderId', filter.orderId, 'a.order_id = @orderId');
    add(
      'clinicOrderId',
      filter.clinicOrderId,
      'a.order_id IN (SELECT id FROM orders WHERE clinic_order_id = @clinicOrderId)',
    );
    add('action', action, 'a.action = @action');
    add('search', filter.search, `instr(${AUDIT_SEARCH_TEXT}, lower(@search)) > 0`);
    const from = how.match ? 'audit_search JOIN audit_entries a ON a.seq = audit_search.rowid' : 'audit_entries a';
    const tail = `${from} WHERE ${where.join(' AND ')} ORDER BY ${seq} ${newestFirst ? 'DESC' : 'ASC'}`;
    let statement = this.#searches.get(tail);
    if (!statement) {
      statement = this.#db.prepare(`SELECT ${ROW_COLUMNS} FROM ${tail} LIMIT @limit`);
      this.#searches.set(tail, statement);
    }
    return statement.all(parameters).map(fromStored);
  }

  /**
   * Adds up to `limit` entries after the last one indexed to the free-text index and moves its mark, in one
   * transaction; returns how many (0: caught up, or no index). The search indexer calls it in the background.
   */
  indexForSearch(limit: number): number {
    if (!this.#hasSearchIndex) return 0;
    return this.#indexBatch!.immediate(limit);
  }

  /**
   * One bounded step of merging the free-text index's segments (FTS5 `merge`, about `pages` pages written): batch
   * by batch filling leaves many small segments, and a search reads each (a clinic order id 28 → 5 ms p50 here once
   * merged). True when it merged something (the index's structure record, FTS5's row 10, changed).
   */
  mergeSearchIndex(pages: number): boolean {
    if (!this.#hasSearchIndex) return false;
    const structure = () => this.#searchStructure!.get()?.block;
    const before = structure();
    this.#searchMerge!.run(pages);
    const after = structure();
    return before !== undefined && after !== undefined && !before.equals(after);
  }

  /** Entries appended and not yet in the free-text index. */
  searchBacklog(): number {
    if (!this.#hasSearchIndex) return 0;
    return Math.max(0, this.lastSeq() - this.#indexedThrough!.get()!.through);
  }
}

/**
 * The FTS5 query that finds the entries holding every three-character piece of `text` (the trigram index keeps no
 * positions, so this is a superset: the search then checks the whole text), or null when the text is shorter than
 * three characters and has no piece to look up.
 */
export function trigramQuery(text: string): string | null {
  const chars = Array.from(text.toLowerCase());
  if (chars.length < 3) return null;
  const pieces = new Set<string>();
  for (let index = 0; index + 3 <= chars.length; index += 1) pieces.add(chars.slice(index, index + 3).join(''));
  return [...pieces].map((piece) => `"${piece.replaceAll('"', '""')}"`).join(' AND ');
}

/** A row as the statements read it: the shared details text and the entry's own values apart. */
type Stored<Row extends AuditRow> = Row & { ownKeys: string; detailValues: string | null };

/** The row as the model knows it: its details text whole again (audit-details-split.ts). */
function fromStored<Row extends AuditRow>({ ownKeys, detailValues, ...row }: Stored<Row>): Row {
  const stored = row as unknown as Row;
  if (detailValues !== null) stored.detailsJson = joinDetails(stored.detailsJson, ownKeys, detailValues);
  return stored;
}

function* mapIterator<From, To>(rows: IterableIterator<From>, map: (row: From) => To): IterableIterator<To> {
  for (const row of rows) yield map(row);
}

import type { AUDIT_CHAIN_PROBLEMS } from '../../../shared/log-views.js';
import type { Store } from '../store/store.js';
import {
  auditHash,
  GENESIS_HASH,
  keyedAuditLink,
  LINK_KEYED_SHORT,
  LINK_PLAIN,
  shortKeyedAuditLink,
  type ChainRow,
  type LinkKey,
} from '../model/audit-entry.js';
import type { ChainHead } from './chain-key.js';

/** What is wrong, at the first entry concerned (`brokenAt`): see AUDIT_CHAIN_PROBLEMS. */
export type AuditChainProblem = (typeof AUDIT_CHAIN_PROBLEMS)[number];

export type AuditChainReport =
  { ok: true; count: number } | { ok: false; brokenAt: number; problem: AuditChainProblem; reason: string };

export interface VerifyOptions {
  /** The keys to check keyed links with (this program's, and any other program's it can read). */
  keys?: readonly LinkKey[];
  /** The head recorded outside the database: the chain must reach it, with the recorded link at its seq. */
  head?: ChainHead | null;
  /** The first seq this program's key linked: every entry from there on must be keyed. */
  keyedSince?: number | null;
  /**
   * The end of a prefix verified before (kept outside the database under the key: `ChainSecret.verified`): only
   * what follows it is checked, after checking that the entry at its seq still has its link. A change inside the
   * prefix that leaves that entry alone is found only by a full verification (no `verified`).
   */
  verified?: ChainHead | null;
}

/** A whole-chain walk's extras: progress now and then, a stop between pages, page size (the connection is free between). */
export interface StreamingVerifyOptions extends VerifyOptions {
  signal?: AbortSignal;
  /** After each page: entries checked so far, of `total` (the entries there were when the check began). */
  onProgress?: (checked: number, total: number) => void;
  pageSize?: number;
}

/**
 * Walks the chain from the first entry and reports the first entry concerned: a missing seq, a prev_hash that is
 * not the previous entry's link, content that no longer matches its link (a plain SHA-256 for entries from before
 * the key, an HMAC under the key after), a plain link after keyed ones, a key this program does not hold, and
 * against the recorded head: an entry at its seq with another link, or a chain that ends before it. Synchronous,
 * streaming rows one at a time. Without a head it cannot see entries cut off the end.
 */
export function verifyAuditChain(store: Store, options: VerifyOptions = {}): AuditChainReport {
  const checker = new ChainChecker(store, options);
  const early = checker.begin();
  if (early) return early;
  for (const row of store.audit.rows(checker.afterSeq)) {
    const broken = checker.check(row);
    if (broken) return broken;
  }
  return checker.finish();
}

/**
 * `verifyAuditChain` a page at a time, with a turn of the event loop between pages (other calls, the submitter's
 * appends, are served meanwhile), progress after each page, and a stop through `signal` (it then rejects with the
 * signal's reason). It checks the entries there were when it began; those appended meanwhile are the next check's.
 */
export async function verifyAuditChainStreaming(
  store: Store,
  options: StreamingVerifyOptions = {},
): Promise<AuditChainReport> {
  const checker = new ChainChecker(store, options);
  const early = checker.begin();
  if (early) return early;
  const upToSeq = store.audit.lastSeq();
  const pageSize = options.pageSize ?? 2_000;
  let afterSeq = checker.afterSeq;
  for (;;) {
    options.signal?.throwIfAborted();
    const rows = store.audit.chainPage(afterSeq, pageSize, upToSeq);
    if (rows.length === 0) break;
    for (const row of rows) {
      const broken = checker.check(row);
      if (broken) return broken;
    }
    afterSeq = rows[rows.length - 1]!.seq;
    options.onProgress?.(afterSeq, upToSeq);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  options.signal?.throwIfAborted();
  return checker.finish();
}

const broken = (brokenAt: number, problem: AuditChainProblem, reason: string): AuditChainReport => ({
  ok: false,
  brokenAt,
  problem,
  reason,
});

/** The checks of one walk along the chain, row by row, whichever way the rows are read. */
class ChainChecker {
  readonly #store: Store;
  readonly #options: VerifyOptions;
  readonly #keys: Map<string, LinkKey>;
  readonly #head: ChainHead | null;
  readonly #keyedSince: number;
  #expectedSeq = 1;
  #prevHash = GENESIS_HASH;
  #keyedFrom = 0;

  constructor(store: Store, options: VerifyOptions) {
    this.#store = store;
    this.#options = options;
    this.#keys = new Map((options.keys ?? []).map((key) => [key.id, key]));
    this.#head = options.head ?? null;
    this.#keyedSince = options.keyedSince ?? Number.MAX_SAFE_INTEGER;
  }

  /** The seq the walk reads after (0, or the end of the verified prefix). */
  get afterSeq(): number {
    return this.#expectedSeq - 1;
  }

  /** Checks the verified prefix's last entry (when there is one): a report if it is gone or changed. */
  begin(): AuditChainReport | null {
    const verified = this.#options.verified ?? null;
    if (!verified) return null;
    const store = this.#store;
    const head = this.#head;
    const [row] = store.audit.rows(verified.seq - 1);
    if (!row || row.seq !== verified.seq) {
      // The first entry concerned: the one after the last still there, when the log ends before the verified prefix.
      const firstMissing = Math.min(verified.seq, store.audit.lastSeq() + 1);
      return broken(
        firstMissing,
        'truncated',
        `entries from ${firstMissing} on are missing: entry ${verified.seq} was verified before, so the log was cut short`,
      );
    }
    if (row.hash !== verified.link) {
      return broken(
        row.seq,
        'diverged',
        `entry ${row.seq} is not the entry verified before: the log was rewritten, or an older copy was restored`,
      );
    }
    // The prefix passed: no plain link follows a keyed one in it, so a keyed last entry means keyed from there on.
    if (row.linkScheme !== LINK_PLAIN && row.keyId !== null) this.#keyedFrom = row.seq;
    this.#prevHash = row.hash;
    this.#expectedSeq = row.seq + 1;
    // A recorded head inside the prefix: the entry there must still be the recorded one.
    if (head && head.seq <= verified.seq && store.audit.linkAt(head.seq) !== head.link) {
      return broken(
        head.seq,
        'diverged',
        `entry ${head.seq} is not the entry recorded outside the database: the log was rewritten, or an older copy ` +
          'was restored and written on',
      );
    }
    return null;
  }

  /** Checks the next row; a report at the first problem. */
  check(row: ChainRow): AuditChainReport | null {
    const expectedSeq = this.#expectedSeq;
    const head = this.#head;
    if (row.seq !== expectedSeq) {
      return broken(row.seq, 'missing', `entry ${row.seq} follows ${expectedSeq - 1}: entries are missing`);
    }
    // The previous link is not stored (migration 21): every link covers the one before it, as this walk read it.
    row.prevHash = this.#prevHash;
    if (row.linkScheme === LINK_PLAIN || row.keyId === null) {
      if (this.#keyedFrom > 0 || row.seq >= this.#keyedSince) {
        return broken(
          row.seq,
          'unkeyed',
          `entry ${row.seq} has a plain hash where entries are keyed (from ${this.#keyedFrom || this.#keyedSince}): it ` +
            'was written without the key',
        );
      }
      if (auditHash(row) !== row.hash) return broken(row.seq, 'altered', "hash does not match the entry's content");
    } else {
      if (this.#keyedFrom === 0) this.#keyedFrom = row.seq;
      const key = this.#keys.get(row.keyId);
      if (!key) {
        return broken(
          row.seq,
          'unknown-key',
          `entry ${row.seq} is keyed with a key this program does not hold (key ${row.keyId}): written by another ` +
            'program using this data directory (verify it there), or the key was lost or replaced',
        );
      }
      const link =
        row.linkScheme === LINK_KEYED_SHORT
          ? row.atMs === null
            ? null
            : shortKeyedAuditLink(row, row.atMs, key)
          : keyedAuditLink(row, key);
      if (link !== row.hash) {
        return broken(row.seq, 'altered', "the keyed link does not match the entry's content: changed without the key");
      }
    }
    if (head && row.seq === head.seq && row.hash !== head.link) {
      return broken(
        row.seq,
        'diverged',
        `entry ${row.seq} is not the entry recorded outside the database: the log was rewritten, or an older copy ` +
          'was restored and written on',
      );
    }
    this.#prevHash = row.hash;
    this.#expectedSeq += 1;
    return null;
  }

  /** After the last row: whole, unless the chain ends before the recorded head. */
  finish(): AuditChainReport {
    const count = this.#expectedSeq - 1;
    const head = this.#head;
    if (head && count < head.seq) {
      return broken(
        count + 1,
        'truncated',
        `entries after ${count} are missing: entry ${head.seq} was recorded, so the log was cut short or rolled back to ` +
          'an older copy',
      );
    }
    return { ok: true, count };
  }
}

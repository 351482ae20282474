import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditFilter } from './audit-repo.js';
import { openStore, type Store } from './store.js';
import { searchableText } from './testing/audit-search-oracle.js';
import { buildScaleStore } from './testing/scale-store.js';
import { LOCAL, manualClock, removeDir, tempDataDir } from './testing/store-fixtures.js';

// A log-screen search that no index answers reads a window of the log per call and says where it stopped (issue
// #16: free text before the trigram index caught up read all 7.5 million entries in one call, 5.4 s).
let store: Store;
let dataDir: string;
const WINDOW = 300;

beforeAll(() => {
  dataDir = tempDataDir('rx-search-window-');
  const clock = manualClock('2026-01-05T08:00:00.000Z');
  store = openStore({ dataDir, now: clock.now });
  store.environments.upsert(LOCAL);
  buildScaleStore(store, { orders: 600, batchSize: 200, environmentId: LOCAL.id }, clock);
}, 60_000);

afterAll(() => {
  store.close();
  removeDir(dataDir);
});

/** Every seq whose searchable text holds `text`, newest first, read the slow way. */
function everyMatch(text: string): number[] {
  return store.audit
    .page(0, 1_000_000)
    .filter((row) => searchableText(row).includes(text.toLowerCase()))
    .map((row) => row.seq)
    .reverse();
}

/** The screen's way: page after page, going on from where each stopped, with how far back each call read. */
function pageThrough(filter: AuditFilter, limit: number) {
  const seqs: number[] = [];
  const reads: number[] = [];
  let beforeSeq = store.audit.lastSeq() + 1;
  for (;;) {
    const page = store.audit.searchPage({ ...filter, beforeSeq, limit }, WINDOW);
    seqs.push(...page.entries.map((entry) => entry.seq));
    const next =
      page.entries.length === limit ? page.entries.at(-1)!.seq : (page.resumeBeforeSeq ?? (null as number | null));
    if (page.resumeBeforeSeq !== null) {
      expect(page.entries.length).toBeLessThan(limit);
      reads.push(beforeSeq - page.resumeBeforeSeq);
    }
    if (next === null) return { seqs, reads };
    beforeSeq = next;
  }
}

describe('log search over entries no index holds', () => {
  it('reads at most a window a call, and paging on finds exactly what reading the whole log finds', () => {
    const total = store.audit.lastSeq();
    expect(total).toBeGreaterThan(WINDOW * 4);
    expect(store.audit.searchBacklog()).toBe(total); // nothing indexed yet, as right after the migration
    for (const text of ['no such text', 'CO-0000004', 'zz', 'prescription']) {
      const { seqs, reads } = pageThrough({ search: text }, 50);
      expect(seqs, text).toEqual(everyMatch(text));
      expect(Math.max(0, ...reads), text).toBeLessThanOrEqual(WINDOW);
    }
    // A rare text: the first call stops after one window with nothing found, and says where to go on.
    const first = store.audit.searchPage({ search: 'no such text', limit: 50 }, WINDOW);
    expect(first).toEqual({ entries: [], resumeBeforeSeq: total + 1 - WINDOW });
    // An environment alone has no index either.
    const other = pageThrough({ environmentId: 'nowhere' }, 50);
    expect(other.seqs).toEqual([]);
    expect(other.reads.length).toBeGreaterThan(3);
  });

  it('once the index holds most of the log, reads only the entries after its mark one by one', () => {
    const total = store.audit.lastSeq();
    while (store.audit.searchBacklog() > WINDOW * 2) store.audit.indexForSearch(500);
    const text = 'prescription';
    const { seqs, reads } = pageThrough({ search: text }, 50);
    expect(seqs).toEqual(everyMatch(text));
    expect(reads.length).toBeLessThanOrEqual(2);
    while (store.audit.indexForSearch(1_000) > 0);
    expect(store.audit.searchPage({ search: 'no such text', limit: 50 }, WINDOW)).toEqual({
      entries: [],
      resumeBeforeSeq: null,
    });
    // Text too short for the trigram index is still read a window at a time.
    expect(store.audit.searchPage({ search: 'zq', limit: 50 }, WINDOW).resumeBeforeSeq).toBe(total + 1 - WINDOW);
    // Whatever an index answers is never cut: no filter, a clinic order id.
    expect(store.audit.searchPage({ limit: 50 }, WINDOW)).toMatchObject({ resumeBeforeSeq: null });
    expect(store.audit.searchPage({ clinicOrderId: 'nowhere', limit: 50 }, WINDOW)).toEqual({
      entries: [],
      resumeBeforeSeq: null,
    });
  });
});

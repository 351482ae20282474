import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '../store/store.js';
import { manualClock, removeDir, storeWithBatch } from '../store/testing/store-fixtures.js';
import { AuditSearchIndexer } from './search-indexer.js';

describe('the log search indexer', () => {
  let store: Store;
  let dataDir: string;
  let indexer: AuditSearchIndexer | undefined;

  afterEach(() => {
    indexer?.stop();
    store.close();
    removeDir(dataDir);
  });

  function append(count: number) {
    store.inTransaction(() => {
      for (let index = 0; index < count; index += 1) {
        store.audit.append({ actor: 'submitter', action: 'order.attempt', clinicOrderId: `RX-${index}` });
      }
    });
  }

  it('catches up in batches in the background, keeps up with new entries, and stops when told', async () => {
    ({ store, dataDir } = storeWithBatch(manualClock().now));
    append(2_500);
    const batches = vi.spyOn(store.audit, 'indexForSearch');
    const merges = vi.spyOn(store.audit, 'mergeSearchIndex');
    indexer = new AuditSearchIndexer(store, { batch: 500, idleMs: 10, firstAfterMs: 0 });
    await vi.waitFor(() => expect(store.audit.searchBacklog()).toBe(0));
    // Then the batches' segments merged, a step at a time, until a step finds nothing left.
    await vi.waitFor(() => expect(merges.mock.results.at(-1)?.value).toBe(false));
    // A batch per transaction, not the whole backlog at once.
    expect(batches.mock.calls.slice(0, 5).every(([limit]) => limit === 500)).toBe(true);
    expect(batches.mock.calls.length).toBeGreaterThanOrEqual(5);
    append(30);
    await vi.waitFor(() => expect(store.audit.searchBacklog()).toBe(0));
    indexer.stop();
    append(10);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(store.audit.searchBacklog()).toBe(10);
  });

  it('reports a failure and tries again later instead of stopping', async () => {
    ({ store, dataDir } = storeWithBatch(manualClock().now));
    append(10);
    const failures: unknown[] = [];
    vi.spyOn(store.audit, 'indexForSearch').mockImplementationOnce(() => {
      throw new Error('disk I/O error');
    });
    indexer = new AuditSearchIndexer(store, { idleMs: 5, firstAfterMs: 0, onError: (error) => failures.push(error) });
    await vi.waitFor(() => expect(store.audit.searchBacklog()).toBe(0));
    expect(failures).toHaveLength(1);
  });

  it('merges the segments small batches leave, in bounded steps, without changing what a search finds', () => {
    ({ store, dataDir } = storeWithBatch(manualClock().now));
    append(2_000);
    while (store.audit.indexForSearch(50) > 0);
    const found = () => store.audit.search({ search: 'rx-1999', limit: 500 }).map((entry) => entry.seq);
    const before = found();
    expect(before).toHaveLength(1);
    let steps = 0;
    while (store.audit.mergeSearchIndex(8)) steps += 1;
    expect(steps).toBeGreaterThan(0);
    expect(store.audit.mergeSearchIndex(8)).toBe(false);
    expect(found()).toEqual(before);
  });
});

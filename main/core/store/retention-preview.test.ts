import { afterEach, describe, expect, it } from 'vitest';
import { FINISHED_ORDER_WHERE } from './retention-repo.js';
import { retentionPreviewReads } from './retention-preview.js';
import { openStore, type Store } from './store.js';
import { removeDir, tempDataDir } from './testing/store-fixtures.js';

/**
 * The count behind the question before a shorter retention time (retention-preview.ts) is asked while the admin
 * waits: it must go through the batches retention is not done with and their staged orders by state, never
 * through every staged order the store has ever held.
 */

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
  if (dir) removeDir(dir);
  dir = undefined;
});

describe('what a shorter retention time would drop', () => {
  it('is counted through the indexes retention runs use', () => {
    dir = tempDataDir('rx-retention-preview-');
    store = openStore({ dataDir: dir });
    const db = store.db;
    const plan = (sql: string) =>
      db
        .prepare<[{ cutoff: string; keptFrom: string }], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all({ cutoff: '2030-01-01T00:00:00.000Z', keptFrom: '2029-01-01T00:00:00.000Z' })
        .map((row) => row.detail);
    const reads = retentionPreviewReads(FINISHED_ORDER_WHERE);
    for (const sql of [reads.accepted, reads.discarded]) {
      const steps = plan(sql);
      expect(steps).toContain('SCAN b USING INDEX import_batches_to_compact');
      expect(steps.some((step) => /^SEARCH s USING (COVERING )?INDEX staged_orders_by_state /.test(step))).toBe(true);
      expect(steps.filter((step) => step.startsWith('SCAN ') && !step.includes('import_batches_to_compact'))).toEqual(
        [],
      );
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { stagingFixture, templateCsv, uniqueOrder, type StagingFixture } from './testing/staging-fixtures.js';

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

/** `count` batches of one order each, imported one after another into the environment; their ids, oldest first. */
async function importBatches(f: StagingFixture, count: number, environmentId = LOCAL.id): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const path = f.file(`day-${environmentId}-${i}.csv`, templateCsv([uniqueOrder()]));
    const outcome = await f.staging.importFile({ environmentId, path });
    if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
    ids.push(outcome.batchId);
  }
  return ids;
}

// The Import screen shows the newest batches a page at a time; every older one must be reachable by paging on,
// each once, however many there are (live intake makes one a sender a day).
describe('listing batches a page at a time', () => {
  it('walks every batch newest first with `before`, each once, and ends with a short page', async () => {
    const f = (fixture = stagingFixture());
    const ids = await importBatches(f, 7);

    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = f.staging.listBatches(LOCAL.id, { limit: 3, ...(before !== undefined ? { before } : {}) });
      seen.push(...page.map((batch) => batch.id));
      if (page.length < 3) break;
      before = page.at(-1)!.id;
    }
    expect(seen).toEqual([...ids].reverse());
    expect(f.staging.listBatches(LOCAL.id, { limit: 3, before: ids[0]! })).toEqual([]);
  });

  it('keeps to the environment asked for, also on later pages', async () => {
    const f = (fixture = stagingFixture());
    const other = { ...LOCAL, id: 'second-sandbox', name: 'Second sandbox' };
    f.store.environments.upsert(other);
    const ids = await importBatches(f, 4);
    const elsewhere = await importBatches(f, 2, other.id);
    const older = f.staging.listBatches(LOCAL.id, { limit: 2, before: elsewhere[1]! });
    expect(older.map((batch) => batch.id)).toEqual([ids[3], ids[2]]);
    expect(f.staging.listBatches(other.id, { limit: 5 }).map((batch) => batch.id)).toEqual([...elsewhere].reverse());
    expect(f.staging.listBatches(undefined, { limit: 3 }).map((batch) => batch.id)).toEqual([
      elsewhere[1],
      elsewhere[0],
      ids[3],
    ]);
  });
});

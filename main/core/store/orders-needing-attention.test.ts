import { afterEach, expect, it } from 'vitest';
import { enqueueOrders, type Store } from './store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, storeWithBatch } from './testing/store-fixtures.js';

/**
 * The orders a person must look at (store.orders.list's `needsAttention`, `countNeedingAttention`): rejected, held or
 * refused a cancel, and those flagged as not found at the service or listed there under other ids whatever their
 * state, each once, per environment.
 */

let store: Store | undefined;
let dataDir: string | undefined;
afterEach(() => {
  store?.close();
  if (dataDir) removeDir(dataDir);
  store = dataDir = undefined;
});

const OTHER = 'other-env';

it('lists and counts the orders in an attention state and the noted ones, once each, of the environment only', () => {
  const clock = manualClock();
  const world = storeWithBatch(clock.now);
  ({ store, dataDir } = world);
  const s = store;
  s.environments.upsert({ ...LOCAL, id: OTHER, name: OTHER });
  const otherBatch = s.batches.create({
    environmentId: OTHER,
    sourceFileName: 'other.csv',
    kind: 'csv',
    rowCount: 1,
    invalidCount: 0,
  });
  let pharmacyId = 500;
  const order = (state: 'created' | 'held' | 'rejected' | 'cancel_refused', batchId = world.batchId) => {
    const [id] = enqueueOrders(s, batchId, [sampleOrder()]);
    const patch = state === 'held' || state === 'rejected' ? {} : { pharmacyOrderId: (pharmacyId += 1) };
    s.orders.transition(id!, ['queued'], state, patch, { actor: 'submitter', action: 'test.state' });
    return id!;
  };
  const flag = (id: number) => {
    s.orders.recordNotFound(id, clock.now());
    expect(s.orders.flagNotFound(id, { actor: 'system', action: 'order.lost-at-service' })).toBe(true);
  };

  const listedElsewhere = order('created');
  expect(
    s.orders.noteListedDifferently(
      listedElsewhere,
      { clinicOrderId: 'OTHER-CASE', pharmacyOrderId: '9' },
      { actor: 'system', action: 'order.listed-differently' },
    ),
  ).toBe(true);
  const flaggedCreated = order('created');
  const held = order('held');
  const missedOnce = order('created');
  s.orders.recordNotFound(missedOnce, clock.now()); // counted, not flagged: no one's concern yet
  const refusedAndFlagged = order('cancel_refused');
  flag(refusedAndFlagged);
  order('created'); // fine
  const rejected = order('rejected');
  flag(flaggedCreated);
  flag(order('created', otherBatch.id));

  const ids = (filter: Parameters<Store['orders']['list']>[0]) =>
    s.orders.list({ environmentId: LOCAL.id, needsAttention: true, ...filter }).map((o) => o.id);
  expect(ids({ newestFirst: true })).toEqual([rejected, refusedAndFlagged, held, flaggedCreated, listedElsewhere]);
  expect(ids({})).toEqual([listedElsewhere, flaggedCreated, held, refusedAndFlagged, rejected]);
  expect(ids({ newestFirst: true, limit: 2 })).toEqual([rejected, refusedAndFlagged]);
  expect(ids({ newestFirst: true, beforeId: refusedAndFlagged })).toEqual([held, flaggedCreated, listedElsewhere]);
  expect(s.orders.get(flaggedCreated)).toMatchObject({ state: 'created' });

  expect(s.orders.countNeedingAttention(LOCAL.id)).toBe(5);
  expect(s.orders.countNeedingAttention(OTHER)).toBe(1);
  expect(() => s.orders.list({ needsAttention: true, states: ['held'] })).toThrow(/without states/);
});

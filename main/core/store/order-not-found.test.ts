import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { enqueueOrders, type Store } from './store.js';
import { manualClock, removeDir, sampleOrder, storeWithBatch } from './testing/store-fixtures.js';

/** store.orders' writes of an order the service does not find (order-not-found.ts): the rule is tracking's. */

const audit = (action: string) => ({ actor: 'system' as const, action, details: { operation: 'status' } });

describe("an order's run of not-found lookups", () => {
  let store: Store | undefined;
  let dataDir: string | undefined;
  afterEach(() => {
    store?.close();
    if (dataDir) removeDir(dataDir);
    store = dataDir = undefined;
  });

  it('counts misses from the first, flags once with one entry, and clears with one, leaving the state alone', () => {
    const clock = manualClock();
    const world = storeWithBatch(clock.now);
    ({ store, dataDir } = world);
    const s = store;
    const [id] = enqueueOrders(s, world.batchId, [sampleOrder()]);
    s.orders.transition(id!, ['queued'], 'created', { pharmacyOrderId: 42 }, { actor: 'submitter', action: 'x.y' });
    const first = clock.now();
    const updatedAt = s.orders.get(id!)!.updatedAt;

    expect(s.orders.recordNotFound(id!, first)).toEqual({ lookups: 1, since: first.toISOString(), flaggedAt: null });
    clock.advance(60_000);
    expect(s.orders.recordNotFound(id!, clock.now())).toMatchObject({ lookups: 2, since: first.toISOString() });
    // A miss is no news: the order's updated time stays, and nothing is audited.
    expect(s.orders.get(id!)!.updatedAt).toBe(updatedAt);
    expect(s.audit.forOrder(id!).map((e) => e.action)).toEqual(['x.y']);

    expect(s.orders.flagNotFound(id!, audit('order.flag'))).toBe(true);
    expect(s.orders.flagNotFound(id!, audit('order.flag'))).toBe(false);
    const flagged = s.orders.get(id!)!;
    expect(flagged).toMatchObject({ state: 'created', pharmacyOrderId: 42, updatedAt: clock.now().toISOString() });
    expect(flagged.notFound).toEqual({ lookups: 2, since: first.toISOString(), flaggedAt: clock.now().toISOString() });

    expect(s.orders.clearNotFound(id!, audit('order.clear'))).toBe(true);
    expect(s.orders.clearNotFound(id!, audit('order.clear'))).toBe(false);
    expect(s.orders.get(id!)).toMatchObject({ state: 'created', notFound: null });
    const trail = s.audit.forOrder(id!);
    expect(trail.map((e) => e.action)).toEqual(['x.y', 'order.flag', 'order.clear']);
    expect(trail[1]).toMatchObject({
      orderId: id,
      environmentId: flagged.environmentId,
      clinicCode: flagged.clinicCode,
    });

    // A run never flagged ends without an entry.
    s.orders.recordNotFound(id!, clock.now());
    expect(s.orders.clearNotFound(id!, audit('order.clear'))).toBe(false);
    expect(s.orders.get(id!)!.notFound).toBeNull();
    expect(s.audit.forOrder(id!)).toHaveLength(3);
    expect(verifyAuditChain(s)).toMatchObject({ ok: true });
  });

  it('notes a listing under other ids once, ending a run of misses; the flag and a find each clear it', () => {
    const clock = manualClock();
    const world = storeWithBatch(clock.now);
    ({ store, dataDir } = world);
    const s = store;
    const [id] = enqueueOrders(s, world.batchId, [sampleOrder()]);
    s.orders.transition(id!, ['queued'], 'created', { pharmacyOrderId: 42 }, { actor: 'submitter', action: 'x.y' });
    const listed = { clinicOrderId: 'other-case', pharmacyOrderId: null };
    s.orders.recordNotFound(id!, clock.now());

    clock.advance(60_000);
    const at = clock.now().toISOString();
    expect(s.orders.noteListedDifferently(id!, listed, audit('order.listed'))).toBe(true);
    expect(s.orders.get(id!)).toMatchObject({ state: 'created', notFound: null, listedDifferently: { ...listed, at } });
    // The same listing again is no news; it still ends a run of misses made since.
    s.orders.recordNotFound(id!, clock.now());
    clock.advance(60_000);
    expect(s.orders.noteListedDifferently(id!, listed, audit('order.listed'))).toBe(false);
    expect(s.orders.get(id!)).toMatchObject({ notFound: null, listedDifferently: { at }, updatedAt: at });
    // Another listing is.
    expect(s.orders.noteListedDifferently(id!, { ...listed, pharmacyOrderId: '43' }, audit('order.listed'))).toBe(true);

    // A flag replaces the note; a find clears either, with its entry.
    s.orders.recordNotFound(id!, clock.now());
    expect(s.orders.flagNotFound(id!, audit('order.flag'))).toBe(true);
    expect(s.orders.get(id!)).toMatchObject({ notFound: { lookups: 1 }, listedDifferently: null });
    expect(s.orders.noteListedDifferently(id!, listed, audit('order.listed'))).toBe(true);
    expect(s.orders.get(id!)).toMatchObject({ notFound: null, listedDifferently: listed });
    expect(s.orders.clearNotFound(id!, audit('order.clear'))).toBe(true);
    expect(s.orders.get(id!)).toMatchObject({ notFound: null, listedDifferently: null });
    expect(s.audit.forOrder(id!).map((e) => e.action)).toEqual([
      'x.y',
      'order.listed',
      'order.listed',
      'order.flag',
      'order.listed',
      'order.clear',
    ]);
    expect(verifyAuditChain(s)).toMatchObject({ ok: true });
  });
});

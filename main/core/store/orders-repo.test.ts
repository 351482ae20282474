import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { DuplicateOrderError } from './orders-repo.js';
import { enqueueOrders, type Store } from './store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, storeWithBatch } from './testing/store-fixtures.js';

const EIGHTEEN_DIGITS = '123456789012345678';

describe('orders', () => {
  let store: Store;
  let dataDir: string;
  let batchId: number;
  let clock: ReturnType<typeof manualClock>;

  function setUp() {
    clock = manualClock();
    ({ store, dataDir, batchId } = storeWithBatch(clock.now));
  }

  afterEach(() => {
    store.close();
    removeDir(dataDir);
  });

  describe('enqueueOrders', () => {
    it('stores every order with its exact body and items, counts them on the batch and audits the acceptance', () => {
      setUp();
      const orders = [sampleOrder({ dmdCode: EIGHTEEN_DIGITS }), sampleOrder(), sampleOrder({ state: 'held' })];

      const ids = enqueueOrders(store, batchId, orders, {
        actor: 'user',
        action: 'batch.accepted',
        details: { fileName: 'orders.csv' },
      });

      expect(ids).toHaveLength(3);
      const first = store.orders.get(ids[0]!);
      expect(first).toMatchObject({
        batchId,
        environmentId: LOCAL.id,
        clinicOrderId: orders[0]!.clinicOrderId,
        state: 'queued',
        attempts: 0,
        lastError: null,
        createdAt: clock.now().toISOString(),
      });
      expect(first?.requestBody).toBe(orders[0]!.requestBody);
      expect(first?.requestBody).toContain(`"dmdCode":${EIGHTEEN_DIGITS}`);
      expect(store.orders.items(ids[0]!)[0]?.dmdCode).toBe(EIGHTEEN_DIGITS);
      expect(store.orders.get(ids[2]!)?.state).toBe('held');
      expect(store.batches.get(batchId)?.orderCount).toBe(3);

      // Acceptance is one entry for the batch, not one per order.
      expect(store.audit.forOrder(ids[0]!)).toEqual([]);
      const log = store.audit.page(0, 10);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ action: 'batch.accepted', batchId, environmentId: LOCAL.id, actor: 'user' });
      expect(JSON.parse(log[0]!.detailsJson)).toEqual({ fileName: 'orders.csv', orderCount: 3 });
    });

    it('is all or nothing: a duplicate of an accepted order rolls the whole batch back', () => {
      setUp();
      const existing = sampleOrder({ clinicOrderId: 'DUP-1' });
      enqueueOrders(store, batchId, [existing]);

      let failure: unknown;
      try {
        enqueueOrders(store, batchId, [sampleOrder(), sampleOrder({ clinicOrderId: 'DUP-1' })], {
          actor: 'user',
          action: 'batch.accepted',
        });
      } catch (error) {
        failure = error;
      }

      expect(failure).toBeInstanceOf(DuplicateOrderError);
      expect(failure).toMatchObject({ clinicOrderId: 'DUP-1', clinicCode: 'CLINIC-A', index: 1 });
      expect(store.orders.list()).toHaveLength(1);
      expect(store.batches.get(batchId)?.orderCount).toBe(1);
      expect(store.audit.lastSeq()).toBe(0);
    });

    it('refuses the same clinic order twice within one batch', () => {
      setUp();
      const order = sampleOrder({ clinicOrderId: 'TWICE' });
      expect(() => enqueueOrders(store, batchId, [order, { ...order }])).toThrow(DuplicateOrderError);
      expect(store.orders.list()).toHaveLength(0);
    });

    it('lets a corrected order reuse the clinic order id of one the service rejected or the admin withdrew', () => {
      setUp();
      const [rejected, withdrawn] = enqueueOrders(store, batchId, [
        sampleOrder({ clinicOrderId: 'AGAIN-1' }),
        sampleOrder({ clinicOrderId: 'AGAIN-2' }),
      ]);
      store.orders.transition(rejected!, ['queued'], 'rejected', {}, { actor: 'submitter', action: 'order.rejected' });
      store.orders.transition(withdrawn!, ['queued'], 'withdrawn', {}, { actor: 'user', action: 'order.withdrawn' });

      const again = enqueueOrders(store, batchId, [
        sampleOrder({ clinicOrderId: 'AGAIN-1' }),
        sampleOrder({ clinicOrderId: 'AGAIN-2' }),
      ]);
      expect(again).toHaveLength(2);
      expect(store.orders.findAccepted(LOCAL.id, 'CLINIC-A', 'AGAIN-1')?.id).toBe(again[0]);
    });

    it('stages ready orders without claiming their clinic order id until they are queued', () => {
      setUp();
      const [accepted] = enqueueOrders(store, batchId, [sampleOrder({ clinicOrderId: 'STAGED' })]);
      const [staged] = enqueueOrders(store, batchId, [sampleOrder({ clinicOrderId: 'STAGED', state: 'ready' })]);
      expect(() =>
        store.orders.transition(staged!, ['ready'], 'queued', {}, { actor: 'user', action: 'order.queued' }),
      ).toThrow(DuplicateOrderError);
      expect(store.orders.get(staged!)?.state).toBe('ready');
      expect(store.orders.get(accepted!)?.state).toBe('queued');
      expect(store.audit.lastSeq()).toBe(0);
    });
  });

  describe('transition', () => {
    it('moves the order, applies the patch and appends its audit entry with both states', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder({ clinicOrderId: 'CAS-1' })]);
      clock.advance(1_000);

      const moved = store.orders.transition(
        id!,
        ['queued', 'in_doubt'],
        'created',
        { pharmacyOrderId: 100_234, lastError: null },
        { actor: 'submitter', action: 'order.created', details: { remoteId: '100234', httpStatus: 200 } },
      );

      expect(moved).toBe(true);
      expect(store.orders.get(id!)).toMatchObject({
        state: 'created',
        pharmacyOrderId: 100_234,
        updatedAt: clock.now().toISOString(),
      });
      const entries = store.audit.forOrder(id!);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        actor: 'submitter',
        action: 'order.created',
        environmentId: LOCAL.id,
        batchId,
        orderId: id,
        clinicCode: 'CLINIC-A',
        clinicOrderId: 'CAS-1',
        details: { remoteId: '100234', httpStatus: 200, fromState: 'queued', toState: 'created' },
      });
      expect(verifyAuditChain(store)).toEqual({ ok: true, count: 1 });
    });

    it('does nothing and writes no audit entry when the state is no longer one of `from`', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      store.orders.transition(id!, ['queued'], 'withdrawn', {}, { actor: 'user', action: 'order.withdrawn' });
      const before = store.orders.get(id!);
      const seqBefore = store.audit.lastSeq();

      // The submitter's view is stale: it still thinks the order is queued.
      const moved = store.orders.transition(
        id!,
        ['queued'],
        'sending',
        { nextAttemptAt: clock.now() },
        { actor: 'submitter', action: 'order.sending' },
      );

      expect(moved).toBe(false);
      expect(store.orders.get(id!)).toEqual(before);
      expect(store.audit.lastSeq()).toBe(seqBefore);
    });

    it('returns false for an order that does not exist', () => {
      setUp();
      expect(store.orders.transition(999, ['queued'], 'held', {}, { actor: 'user', action: 'order.held' })).toBe(false);
      expect(store.audit.lastSeq()).toBe(0);
    });

    it('keeps fields the patch leaves out and clears those it sets to null', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      const retryAt = new Date('2025-03-03T09:05:00.000Z');
      store.orders.transition(
        id!,
        ['queued'],
        'queued',
        { lastError: { kind: 'retryable', message: 'server busy', field: null }, nextAttemptAt: retryAt },
        { actor: 'submitter', action: 'order.retry-scheduled' },
      );
      expect(store.orders.get(id!)).toMatchObject({
        lastError: { kind: 'retryable', message: 'server busy', field: null },
        nextAttemptAt: retryAt.toISOString(),
      });

      store.orders.transition(id!, ['queued'], 'held', {}, { actor: 'user', action: 'order.held' });
      expect(store.orders.get(id!)?.lastError?.message).toBe('server busy');

      store.orders.transition(
        id!,
        ['held'],
        'queued',
        { lastError: null, nextAttemptAt: null },
        {
          actor: 'user',
          action: 'order.released',
        },
      );
      expect(store.orders.get(id!)).toMatchObject({ lastError: null, nextAttemptAt: null });
    });

    it('sets exactly the columns each mix of patch fields names, again when a mix comes back', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      const statusAt = new Date('2025-03-03T10:00:00.000Z');
      const move = (from: 'queued' | 'sending' | 'created', to: 'sending' | 'created', patch: object) =>
        expect(store.orders.transition(id!, [from], to, patch, { actor: 'submitter', action: 'order.status' })).toBe(
          true,
        );

      move('queued', 'sending', { lastError: { kind: 'retryable', message: 'busy', field: 'x' } });
      move('sending', 'created', { pharmacyOrderId: 7001, nextAttemptAt: null, trackingId: undefined });
      expect(store.orders.get(id!)).toMatchObject({
        state: 'created',
        pharmacyOrderId: 7001,
        lastError: { kind: 'retryable', message: 'busy', field: 'x' },
        trackingId: null,
        attempts: 0,
      });

      move('created', 'created', { remoteStatus: 'Dispatched', remoteStatusAt: statusAt, dispatchDate: '2025-03-04' });
      move('created', 'created', { trackingId: 'TRK-1', lastError: null });
      // The first mix again, with other values: the statement kept for it binds them.
      move('created', 'created', { remoteStatus: 'Delivered', remoteStatusAt: null, dispatchDate: '2025-03-05' });
      expect(store.orders.get(id!)).toMatchObject({
        pharmacyOrderId: 7001,
        remoteStatus: 'Delivered',
        remoteStatusAt: null,
        dispatchDate: '2025-03-05',
        trackingId: 'TRK-1',
        lastError: null,
        nextAttemptAt: null,
      });
      expect(verifyAuditChain(store).ok).toBe(true);
    });

    it('refuses a state the service must know by id without one, writing nothing', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      expect(() =>
        store.orders.transition(id!, ['queued'], 'created', {}, { actor: 'submitter', action: 'order.created' }),
      ).toThrow(/CHECK constraint/);
      expect(store.orders.get(id!)?.state).toBe('queued');
      expect(store.audit.lastSeq()).toBe(0);
    });

    it('rolls the state change back when its audit entry is refused', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      expect(() =>
        store.orders.transition(
          id!,
          ['queued'],
          'held',
          {},
          {
            actor: 'user',
            action: 'order.held',
            details: { surname: 'Example' } as never,
          },
        ),
      ).toThrow(/surname/);
      expect(store.orders.get(id!)?.state).toBe('queued');
    });
  });

  describe('claimDue', () => {
    it('moves at most N due queued orders of one environment to sending, oldest due first, once', () => {
      setUp();
      const first = enqueueOrders(store, batchId, [sampleOrder(), sampleOrder(), sampleOrder()]);
      clock.advance(1_000);
      const [later, heldId] = enqueueOrders(store, batchId, [sampleOrder(), sampleOrder({ state: 'held' })]);
      // The first order failed and retries in a minute: not due yet.
      store.orders.transition(
        first[0]!,
        ['queued'],
        'queued',
        { nextAttemptAt: new Date(clock.now().getTime() + 60_000) },
        { actor: 'submitter', action: 'order.retry-scheduled' },
      );

      const claimed = store.orders.claimDue(LOCAL.id, 2);
      expect(claimed.map((order) => order.id)).toEqual([first[1], first[2]]);
      expect(claimed.every((order) => order.state === 'sending')).toBe(true);
      expect(store.orders.get(first[1]!)?.state).toBe('sending');

      expect(store.orders.claimDue(LOCAL.id, 10).map((order) => order.id)).toEqual([later]);
      expect(store.orders.claimDue(LOCAL.id, 10)).toEqual([]);

      clock.advance(60_000);
      expect(store.orders.claimDue(LOCAL.id, 10).map((order) => order.id)).toEqual([first[0]]);
      expect(store.orders.get(heldId!)?.state).toBe('held');
      expect(store.orders.claimDue('cloudrx-sandbox', 10)).toEqual([]);
    });

    it('puts a retry that came due before a fresh order first', () => {
      setUp();
      const [retry] = enqueueOrders(store, batchId, [sampleOrder()]);
      store.orders.transition(
        retry!,
        ['queued'],
        'queued',
        { nextAttemptAt: new Date(clock.now().getTime() + 5_000) },
        { actor: 'submitter', action: 'order.retry-scheduled' },
      );
      clock.advance(10_000);
      const [fresh] = enqueueOrders(store, batchId, [sampleOrder()]);
      expect(store.orders.claimDue(LOCAL.id, 5).map((order) => order.id)).toEqual([retry, fresh]);
    });
    it('claims exactly the limit asked each time, whatever limits follow one another', () => {
      setUp();
      const ids = enqueueOrders(
        store,
        batchId,
        Array.from({ length: 7 }, () => sampleOrder()),
      );
      expect(store.orders.claimForSending(LOCAL.id, 2).map((order) => order.id)).toEqual(ids.slice(0, 2));
      expect(store.orders.claimForSending(LOCAL.id, 1).map((order) => order.id)).toEqual(ids.slice(2, 3));
      expect(store.orders.claimDue(LOCAL.id, 2).map((order) => order.id)).toEqual(ids.slice(3, 5));
      expect(store.orders.claimForSending(LOCAL.id, 0)).toEqual([]);
      expect(store.orders.claimForSending(LOCAL.id, 1.5)).toEqual([]);
      // A limit beyond every order (even past the safe integers) claims the rest.
      expect(store.orders.claimForSending(LOCAL.id, 2 ** 60).map((order) => order.id)).toEqual(ids.slice(5));
      expect(store.orders.countByState(LOCAL.id).sending).toBe(7);
    });
  });

  describe('reading', () => {
    it('lists by state, batch, dm+d code with keyset paging, and counts every state', () => {
      setUp();
      const ids = enqueueOrders(store, batchId, [
        sampleOrder({ dmdCode: EIGHTEEN_DIGITS }),
        sampleOrder(),
        sampleOrder({ state: 'held' }),
        sampleOrder({ state: 'ready' }),
      ]);
      store.orders.transition(
        ids[1]!,
        ['queued'],
        'created',
        { pharmacyOrderId: 100_777 },
        {
          actor: 'submitter',
          action: 'order.created',
        },
      );

      expect(store.orders.list({ states: ['queued', 'held'] }).map((order) => order.id)).toEqual([ids[0], ids[2]]);
      expect(store.orders.list({ dmdCode: EIGHTEEN_DIGITS }).map((order) => order.id)).toEqual([ids[0]]);
      expect(store.orders.list({ batchId, limit: 2 }).map((order) => order.id)).toEqual(ids.slice(0, 2));
      expect(store.orders.list({ batchId, afterId: ids[1]!, limit: 2 }).map((order) => order.id)).toEqual(
        ids.slice(2, 4),
      );
      expect(store.orders.list({ environmentId: 'cloudrx-sandbox' })).toEqual([]);
      expect(store.orders.findByPharmacyOrderId(LOCAL.id, 100_777)?.id).toBe(ids[1]);

      const counts = store.orders.countByState(LOCAL.id);
      expect(counts).toMatchObject({ queued: 1, created: 1, held: 1, ready: 1, sending: 0, cancelled: 0 });
      expect(Object.keys(counts)).toHaveLength(12);
      expect(store.orders.countByState('cloudrx-sandbox').queued).toBe(0);
    });
  });
});

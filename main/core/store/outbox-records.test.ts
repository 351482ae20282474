import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { presetEnvironments } from '../environments/presets.js';
import { STORED_BODY_CHECK_VERSION } from '../model/stored-body-check.js';
import { DEFAULT_SENDING_PACE } from './environments-repo.js';
import { enqueueOrders, type Store } from './store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, storeWithBatch } from './testing/store-fixtures.js';

describe('outbox records', () => {
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

  describe('environments', () => {
    it('stores profiles with default pace, and keeps a pace the admin set when the profile is upserted again', () => {
      setUp();
      const [, remote] = presetEnvironments();
      expect(store.environments.upsert(remote!)).toEqual({ ...remote, ...DEFAULT_SENDING_PACE });

      store.environments.upsert({ ...remote!, concurrency: 6, ratePerSecond: 1.5 });
      const renamed = store.environments.upsert({ ...remote!, name: 'CloudRx test', clientId: 'supplier-42' });

      expect(renamed).toMatchObject({
        name: 'CloudRx test',
        clientId: 'supplier-42',
        concurrency: 6,
        ratePerSecond: 1.5,
      });
      expect(store.environments.list().map((environment) => environment.id)).toEqual([LOCAL.id, remote!.id]);
      expect(store.environments.get('missing')).toBeUndefined();
    });

    it('refuses a profile the shared schema refuses, storing nothing', () => {
      setUp();
      expect(() => store.environments.upsert({ ...LOCAL, id: 'Bad Id!' })).toThrow();
      expect(() => store.environments.upsert({ ...LOCAL, id: 'slow', concurrency: 0 })).toThrow();
      expect(store.environments.list()).toHaveLength(1);
    });
  });

  describe('batches', () => {
    it('records the source file and counts, newest first per environment', () => {
      setUp();
      const second = store.batches.create({
        environmentId: LOCAL.id,
        sourceFileName: 'feb.hl7',
        kind: 'hl7',
        rowCount: 4,
        invalidCount: 1,
      });
      expect(second).toMatchObject({ kind: 'hl7', rowCount: 4, invalidCount: 1, orderCount: 0 });
      expect(store.batches.list(LOCAL.id).map((batch) => batch.id)).toEqual([second.id, batchId]);
      expect(() =>
        store.batches.create({
          environmentId: LOCAL.id,
          sourceFileName: 'x.csv',
          kind: 'csv',
          rowCount: 1,
          invalidCount: 2,
        }),
      ).toThrow(/CHECK constraint/);
    });
  });

  describe('attempts', () => {
    it('records each call with its audit entry, counting only creates on the order', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder({ clinicOrderId: 'ATT-1' })]);

      store.attempts.record({
        orderId: id!,
        operation: 'create',
        startedAt: clock.now(),
        latencyMs: 30_000,
        httpStatus: null,
        outcome: 'in-doubt',
        errorMessage: 'no answer within 30 s',
      });
      store.attempts.record({
        orderId: id!,
        operation: 'lookup',
        startedAt: clock.now(),
        latencyMs: 85.4,
        httpStatus: 200,
        outcome: 'ok',
        remoteId: '100321',
      });

      expect(store.orders.get(id!)?.attempts).toBe(1);
      expect(store.attempts.list(id!)).toMatchObject([
        { operation: 'create', outcome: 'in-doubt', latencyMs: 30_000, httpStatus: null },
        { operation: 'lookup', outcome: 'ok', latencyMs: 85, remoteId: '100321' },
      ]);
      expect(store.audit.forOrder(id!).map((entry) => entry.details)).toEqual([
        {
          operation: 'create',
          outcome: 'in-doubt',
          attempt: 1,
          latencyMs: 30_000,
          errorKind: 'in-doubt',
          errorMessage: 'no answer within 30 s',
        },
        { operation: 'lookup', outcome: 'ok', httpStatus: 200, latencyMs: 85, remoteId: '100321' },
      ]);
      expect(store.audit.forOrder(id!)[0]).toMatchObject({
        actor: 'submitter',
        action: 'order.attempt',
        clinicOrderId: 'ATT-1',
      });
    });

    it('never stores a credential a service echoed into its error text', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
      store.attempts.record({
        orderId: id!,
        operation: 'create',
        startedAt: clock.now(),
        latencyMs: 12,
        httpStatus: 401,
        outcome: 'auth',
        errorMessage: `rejected header Authorization: Bearer ${token}`,
      });
      const stored = JSON.stringify([store.attempts.list(id!), store.audit.forOrder(id!)]);
      expect(stored).not.toContain(token);
      expect(stored).toContain('Bearer [redacted]');
    });

    it('can commit an attempt and the transition it leads to together, or neither', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      expect(() =>
        store.inTransaction(() => {
          store.attempts.record({
            orderId: id!,
            operation: 'create',
            startedAt: clock.now(),
            latencyMs: 40,
            httpStatus: 200,
            outcome: 'ok',
            remoteId: '100500',
          });
          // created without the pharmacy order id breaks a CHECK: everything above must roll back too.
          store.orders.transition(id!, ['queued'], 'created', {}, { actor: 'submitter', action: 'order.created' });
        }),
      ).toThrow(/CHECK constraint/);
      expect(store.attempts.list(id!)).toEqual([]);
      expect(store.orders.get(id!)?.attempts).toBe(0);
      expect(store.audit.lastSeq()).toBe(0);
    });
  });

  describe('an attempt with the state change it led to', () => {
    function claimedOrder(clinicOrderId: string): number {
      const [id] = enqueueOrders(store, batchId, [sampleOrder({ clinicOrderId })]);
      expect(store.orders.claimForSending(LOCAL.id, 1).map((order) => order.id)).toEqual([id]);
      return id!;
    }

    const created = (pharmacyOrderId: number) => ({
      from: ['sending'] as const,
      to: 'created' as const,
      patch: { pharmacyOrderId, lastError: null, nextAttemptAt: null },
      action: 'order.created',
    });

    it('stores the attempt, moves the order and writes one audit entry with both', () => {
      setUp();
      const id = claimedOrder('ONE-1');
      const historySeen: number[] = [];
      const moved = store.attempts.recordWithTransition(
        {
          orderId: id,
          operation: 'create',
          startedAt: clock.now(),
          latencyMs: 41.6,
          httpStatus: 200,
          outcome: 'ok',
          remoteId: '100777',
        },
        () => {
          // Decided once the attempt is stored: the history already holds it.
          historySeen.push(store.attempts.list(id).length);
          return created(100777);
        },
      );

      expect(moved).toBe(true);
      expect(historySeen).toEqual([1]);
      expect(store.orders.get(id)).toMatchObject({ state: 'created', pharmacyOrderId: 100777, attempts: 1 });
      expect(store.attempts.list(id)).toMatchObject([{ operation: 'create', outcome: 'ok', latencyMs: 42 }]);
      const audit = store.audit.forOrder(id);
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ actor: 'submitter', action: 'order.created', clinicOrderId: 'ONE-1' });
      expect(audit[0]!.details).toEqual({
        operation: 'create',
        outcome: 'ok',
        attempt: 1,
        httpStatus: 200,
        latencyMs: 42,
        remoteId: '100777',
        fromState: 'sending',
        toState: 'created',
      });
      expect(verifyAuditChain(store)).toMatchObject({ ok: true });
    });

    it("lets the change overlay the attempt's details (its message says what follows)", () => {
      setUp();
      const id = claimedOrder('ONE-2');
      store.attempts.recordWithTransition(
        {
          orderId: id,
          operation: 'create',
          startedAt: clock.now(),
          latencyMs: 12,
          httpStatus: 503,
          outcome: 'retryable',
          errorMessage: 'HTTP 503',
        },
        () => ({
          from: ['sending'],
          to: 'queued',
          patch: { lastError: { kind: 'retryable', message: 'HTTP 503' }, nextAttemptAt: clock.now() },
          action: 'order.retry-scheduled',
          details: { errorKind: 'retryable', errorMessage: 'HTTP 503, sent again later' },
        }),
      );
      expect(store.audit.forOrder(id).map((entry) => [entry.action, entry.details])).toEqual([
        [
          'order.retry-scheduled',
          {
            operation: 'create',
            outcome: 'retryable',
            attempt: 1,
            httpStatus: 503,
            latencyMs: 12,
            errorKind: 'retryable',
            errorMessage: 'HTTP 503, sent again later',
            fromState: 'sending',
            toState: 'queued',
          },
        ],
      ]);
    });

    it('audits the attempt alone (and still counts it) when no change follows or the order moved meanwhile', () => {
      setUp();
      const id = claimedOrder('ONE-3');
      const attempt = {
        orderId: id,
        operation: 'create' as const,
        startedAt: clock.now(),
        latencyMs: 5,
        httpStatus: 200,
        outcome: 'ok' as const,
        remoteId: '100778',
      };
      expect(store.attempts.recordWithTransition(attempt, () => null)).toBe(false);
      // Someone else moved it: the compare-and-set fails, the call is still on record.
      store.orders.transition(id, ['sending'], 'in_doubt', {}, { actor: 'system', action: 'order.interrupted' });
      expect(store.attempts.recordWithTransition(attempt, () => created(100778))).toBe(false);

      expect(store.orders.get(id)).toMatchObject({ state: 'in_doubt', pharmacyOrderId: null, attempts: 2 });
      expect(store.attempts.list(id)).toHaveLength(2);
      expect(store.audit.forOrder(id).map((entry) => [entry.action, entry.details.attempt ?? null])).toEqual([
        ['order.attempt', 1],
        ['order.interrupted', null],
        ['order.attempt', 2],
      ]);
    });

    it('commits the attempt and the change together or neither', () => {
      setUp();
      const id = claimedOrder('ONE-4');
      expect(() =>
        store.attempts.recordWithTransition(
          { orderId: id, operation: 'create', startedAt: clock.now(), latencyMs: 5, httpStatus: 200, outcome: 'ok' },
          // created without the pharmacy order id breaks a CHECK: the attempt must roll back with it.
          () => ({ from: ['sending'], to: 'created', patch: {}, action: 'order.created' }),
        ),
      ).toThrow(/CHECK constraint/);
      expect(store.attempts.list(id)).toEqual([]);
      expect(store.orders.get(id)).toMatchObject({ state: 'sending', attempts: 0 });
      expect(store.audit.forOrder(id)).toEqual([]);
    });

    it('refuses an attempt about an order that does not exist, naming it', () => {
      setUp();
      expect(() =>
        store.attempts.recordWithTransition(
          { orderId: 999, operation: 'lookup', startedAt: clock.now(), latencyMs: 5, httpStatus: 200, outcome: 'ok' },
          () => null,
        ),
      ).toThrow('no order 999');
    });

    it("records within the caller's transaction only, rolling back with the caller's savepoint", () => {
      setUp();
      const first = claimedOrder('WITHIN-1');
      const second = claimedOrder('WITHIN-2');
      const ok = (orderId: number) => ({
        orderId,
        operation: 'create' as const,
        startedAt: clock.now(),
        latencyMs: 5,
        httpStatus: 200,
        outcome: 'ok' as const,
      });
      expect(() => store.attempts.recordWithTransitionWithin(ok(first), () => created(100801))).toThrow(
        'recordWithTransitionWithin needs a transaction',
      );
      expect(store.attempts.list(first)).toEqual([]);

      store.inTransaction(() => {
        expect(store.attempts.recordWithTransitionWithin(ok(first), () => created(100801))).toBe(true);
        // The second answer's failure (a CHECK) undoes its savepoint only, never the first answer's record.
        expect(() =>
          store.inTransaction(() =>
            store.attempts.recordWithTransitionWithin(ok(second), () => ({
              from: ['sending'],
              to: 'created',
              patch: {},
              action: 'order.created',
            })),
          ),
        ).toThrow(/CHECK constraint/);
      });

      expect(store.orders.get(first)).toMatchObject({ state: 'created', pharmacyOrderId: 100801, attempts: 1 });
      expect(store.audit.forOrder(first).map((entry) => entry.action)).toEqual(['order.created']);
      expect(store.orders.get(second)).toMatchObject({ state: 'sending', attempts: 0 });
      expect(store.attempts.list(second)).toEqual([]);
      expect(store.audit.forOrder(second)).toEqual([]);
      expect(verifyAuditChain(store)).toMatchObject({ ok: true });
    });
  });

  describe('claims for sending', () => {
    it('claims like claimDue (due first, only queued, once) and returns what sending needs', () => {
      setUp();
      const ids = enqueueOrders(store, batchId, [
        sampleOrder({ clinicOrderId: 'CLAIM-1' }),
        sampleOrder({ clinicOrderId: 'CLAIM-2' }),
        sampleOrder({ clinicOrderId: 'CLAIM-3' }),
      ]);
      // A retry that came due earlier than the fresh orders goes first.
      store.orders.transition(
        ids[2]!,
        ['queued'],
        'queued',
        { nextAttemptAt: new Date(clock.now().getTime() - 60_000) },
        { actor: 'submitter', action: 'order.retry-scheduled' },
      );
      const claimed = store.orders.claimForSending(LOCAL.id, 2);
      expect(claimed.map((order) => order.id)).toEqual([ids[2], ids[0]]);
      expect(claimed[0]).toEqual({
        id: ids[2],
        batchId,
        environmentId: LOCAL.id,
        clinicCode: store.orders.get(ids[2]!)!.clinicCode,
        clinicOrderId: 'CLAIM-3',
        route: 'v1',
        requestBody: store.orders.get(ids[2]!)!.requestBody,
        bodyChecked: null,
      });
      expect(store.orders.get(ids[0]!)?.state).toBe('sending');
      expect(store.orders.claimForSending(LOCAL.id, 5).map((order) => order.id)).toEqual([ids[1]]);
      expect(store.orders.claimForSending(LOCAL.id, 5)).toEqual([]);
      expect(store.orders.claimForSending(LOCAL.id, 0)).toEqual([]);
    });
  });

  describe('vouched bodies', () => {
    const vouchOf = (id: number) =>
      store.db.prepare<[number], { v: number | null }>('SELECT body_checked AS v FROM orders WHERE id = ?').get(id)!.v;

    it('records that a body passed its check only when asked, only when it passes, and hands it to the claim', () => {
      setUp();
      const broken = sampleOrder({ clinicOrderId: 'VOUCH-BROKEN' });
      const wrecked = broken.requestBody.replace('"quantity":', '"quantity":-');
      expect(wrecked).not.toBe(broken.requestBody);
      const ids = enqueueOrders(store, batchId, [
        { ...sampleOrder({ clinicOrderId: 'VOUCH-OK', dmdCode: '123456789012345678' }), checkBody: true },
        { ...broken, requestBody: wrecked, checkBody: true },
        sampleOrder({ clinicOrderId: 'VOUCH-NOT-ASKED' }),
        { ...sampleOrder({ clinicOrderId: 'VOUCH-V2' }), route: 'v2', checkBody: true },
      ]);
      expect(ids.map(vouchOf)).toEqual([STORED_BODY_CHECK_VERSION, null, null, null]);
      // The broken body is stored all the same: the send-time check refuses it with its reasons.
      expect(store.orders.get(ids[1]!)?.requestBody).toBe(wrecked);
      const claimed = store.orders.claimForSending(LOCAL.id, 4);
      expect(Object.fromEntries(claimed.map((order) => [order.clinicOrderId, order.bodyChecked]))).toEqual({
        'VOUCH-OK': STORED_BODY_CHECK_VERSION,
        'VOUCH-BROKEN': null,
        'VOUCH-NOT-ASKED': null,
        'VOUCH-V2': null,
      });
    });

    it('takes the word of a caller that wrote a v1 body from a schema-checked object, and of no other route', () => {
      setUp();
      const ids = enqueueOrders(store, batchId, [
        { ...sampleOrder({ clinicOrderId: 'SCHEMA-V1' }), bodySchemaChecked: true },
        { ...sampleOrder({ clinicOrderId: 'SCHEMA-V2' }), route: 'v2', bodySchemaChecked: true },
        {
          ...sampleOrder({ clinicOrderId: 'SCHEMA-HL7' }),
          route: 'hl7',
          requestBody: 'MSH|^~\\&|X',
          bodySchemaChecked: true,
        },
      ]);
      expect(ids.map(vouchOf)).toEqual([STORED_BODY_CHECK_VERSION, null, null]);
    });

    it('drops the vouch when the body or the route is rewritten, and not on state changes', () => {
      setUp();
      const [first, second] = enqueueOrders(store, batchId, [
        { ...sampleOrder({ clinicOrderId: 'VOUCH-A' }), checkBody: true },
        { ...sampleOrder({ clinicOrderId: 'VOUCH-B' }), checkBody: true },
      ]);
      store.orders.claimForSending(LOCAL.id, 2);
      store.orders.transition(
        first!,
        ['sending'],
        'queued',
        {},
        { actor: 'submitter', action: 'order.retry-scheduled' },
      );
      expect([vouchOf(first!), vouchOf(second!)]).toEqual([STORED_BODY_CHECK_VERSION, STORED_BODY_CHECK_VERSION]);

      store.db.prepare("UPDATE orders SET request_body = request_body || ' ' WHERE id = ?").run(first!);
      store.db.prepare("UPDATE orders SET route = 'v2' WHERE id = ?").run(second!);
      expect([vouchOf(first!), vouchOf(second!)]).toEqual([null, null]);
    });
  });

  describe('status history', () => {
    it('appends only what changed and mirrors the latest onto the order', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      const at = (minutes: number) => new Date(Date.UTC(2025, 2, 3, 10, minutes));

      expect(store.statusHistory.append(id!, { status: 'Waiting Clinical Check', observedAt: at(0) })).toBe(true);
      expect(store.statusHistory.append(id!, { status: 'Waiting Clinical Check', observedAt: at(1) })).toBe(false);
      expect(
        store.statusHistory.append(id!, {
          status: 'Prescription Dispatched',
          dispatchDate: '2025-03-04',
          trackingId: 'RM123456789GB',
          observedAt: at(2),
        }),
      ).toBe(true);
      expect(store.statusHistory.append(id!, { status: 'Some New Status Text', observedAt: at(3) })).toBe(true);

      expect(store.statusHistory.list(id!).map((entry) => [entry.status, entry.observedAt])).toEqual([
        ['Waiting Clinical Check', at(0).toISOString()],
        ['Prescription Dispatched', at(2).toISOString()],
        ['Some New Status Text', at(3).toISOString()],
      ]);
      expect(store.orders.get(id!)).toMatchObject({
        remoteStatus: 'Some New Status Text',
        remoteStatusAt: at(3).toISOString(),
        dispatchDate: null,
        trackingId: null,
      });
    });
  });

  describe('cancellations', () => {
    it('go requested → sent → cancelled | refused, one open per order', () => {
      setUp();
      const [id] = enqueueOrders(store, batchId, [sampleOrder()]);
      const request = store.cancellations.request(id!, 'duplicate prescription');
      expect(request).toMatchObject({ state: 'requested', sentAt: null });
      expect(() => store.cancellations.request(id!, 'again')).toThrow(/UNIQUE constraint/);

      expect(store.cancellations.finish(request.id, 'cancelled', 'ok')).toBe(false); // not sent yet
      clock.advance(500);
      expect(store.cancellations.markSent(request.id)).toBe(true);
      expect(store.cancellations.markSent(request.id)).toBe(false);
      expect(store.cancellations.finish(request.id, 'refused', 'Order already dispatched')).toBe(true);
      expect(store.cancellations.get(request.id)).toMatchObject({
        state: 'refused',
        sentAt: clock.now().toISOString(),
        resultMessage: 'Order already dispatched',
      });
      expect(store.cancellations.open(id!)).toBeUndefined();
      // Refused, so a new request may be opened.
      expect(store.cancellations.request(id!, 'try again').state).toBe('requested');
      expect(store.cancellations.list(id!)).toHaveLength(2);
    });
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AttentionEvent } from '../../main/core/outbox/attention.js';
import { Outbox } from '../../main/core/outbox/outbox.js';
import type { OutboxProgress } from '../../main/core/outbox/progress.js';
import { STORED_BODY_CHECK_VERSION } from '../../main/core/model/stored-body-check.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { sampleCreateWithClinic } from '../support/orders.js';
import { sampleHl7, sampleV2 } from '../support/sample-orders.js';
import {
  ENVIRONMENT_ID,
  enqueue,
  expectEachCreatedOnce,
  hl7Order,
  orderFrom,
  sampleOrders,
  sandboxClient,
  storeForSandbox,
  type OutboxTestStore,
} from './support/outbox-fixture.js';

/** The submitter end to end against the sandbox: routes, exact bodies, outcomes per error kind, pause, notify. */

const FAST = {
  concurrency: 3,
  ratePerSecond: 100,
  baseDelayMs: 10,
  maxDelayMs: 200,
  reconcileDelayMs: 10,
  breakerCooldownMs: 50,
};

let sandbox: RunningSandbox;
const opened: OutboxTestStore[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({
    statusStepMs: 3_600_000,
    lockedOutPatients: [{ surname: 'Lockhart', dateOfBirth: '1980-01-15' }],
  });
});

afterAll(async () => {
  for (const t of opened) t.close();
  await sandbox?.close();
});

function setUp(tuning: Partial<typeof FAST> & { ratePerSecond?: number } = {}) {
  const t = storeForSandbox(sandbox);
  opened.push(t);
  const progress: OutboxProgress[] = [];
  const attention: AttentionEvent[] = [];
  const outbox = new Outbox(
    {
      store: t.store,
      clientFor: () => sandboxClient(sandbox),
      onProgress: (p) => progress.push(p),
      onAttention: (e) => attention.push(e),
    },
    { ...FAST, ...tuning },
  );
  return { t, outbox, progress, attention };
}

describe('the submitter', () => {
  it("hands the store's vouch to the client, so only bodies checked as they were stored skip the send-time check", async () => {
    const t = storeForSandbox(sandbox);
    opened.push(t);
    const client = sandboxClient(sandbox);
    const vouches = new Map<string, number | null | undefined>();
    const spied = {
      ...client,
      sendCreate: (route: 'v1' | 'v2' | 'hl7', body: string, checkedBy?: number | null) => {
        vouches.set(body, checkedBy);
        return client.sendCreate(route, body, checkedBy);
      },
    };
    const outbox = new Outbox({ store: t.store, clientFor: () => spied }, FAST);
    const [checked, unchecked] = sampleOrders('VOUCH', 2);
    const ids = enqueue(t, [{ ...checked!, checkBody: true }, unchecked!]);

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts.created).toBe(2);
    expectEachCreatedOnce(sandbox, t.store, ['VOUCH-0001', 'VOUCH-0002']);
    expect([...vouches.values()]).toHaveLength(2);
    expect(vouches.get(checked!.requestBody)).toBe(STORED_BODY_CHECK_VERSION);
    expect(vouches.get(unchecked!.requestBody)).toBeNull();
    const remote = new Map(sandbox.listOrders().map((o) => [o.clinicOrderId, o.rawBody]));
    for (const id of ids) {
      const local = t.store.orders.get(id)!;
      expect(remote.get(local.clinicOrderId)).toBe(local.requestBody);
    }
  });

  it('sends v1, v2 and HL7 orders byte for byte as stored, and records each as created with its pharmacy id', async () => {
    const { t, outbox, progress } = setUp();
    const v1 = sampleOrders('ROUTES-V1', 3);
    const v2 = orderFrom('v2', sampleV2({ clinicCode: 'DEMO-CLINIC', clinicOrderId: 'ROUTES-V2-1' }));
    const hl7 = sampleHl7({ clinicCode: 'CLINIC-H', clinicOrderId: 'ROUTES-H-1' });
    const ids = enqueue(t, [...v1, v2, hl7Order(hl7.message, 'CLINIC-H', 'ROUTES-H-1')]);

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', state: 'idle', inFlight: 0, openCancels: 0 });
    expect(result.counts.created).toBe(5);
    const clinicOrderIds = [...v1.map((o) => o.clinicOrderId), 'ROUTES-V2-1', 'ROUTES-H-1'];
    expectEachCreatedOnce(sandbox, t.store, clinicOrderIds);

    // What arrived is exactly what was stored (an 18-digit dm+d code cannot have been re-serialised).
    const remote = new Map(sandbox.listOrders().map((o) => [o.clinicOrderId, o]));
    for (const id of ids) {
      const local = t.store.orders.get(id)!;
      const arrived = remote.get(local.clinicOrderId)!;
      expect(arrived.rawBody).toBe(local.requestBody);
      expect(arrived.route).toBe({ v1: 'create-with-clinic-v1', v2: 'create-v2', hl7: 'hl7' }[local.route]);
      const attempts = t.store.attempts.list(id);
      expect(attempts).toEqual([
        expect.objectContaining({
          operation: 'create',
          outcome: 'ok',
          httpStatus: 200,
          remoteId: String(arrived.pharmacyOrderId),
        }),
      ]);
      // One audit entry for the call and the state change it led to.
      const audit = t.store.audit.forOrder(id);
      expect(audit.map((e) => e.action)).toEqual(['order.created']);
      expect(audit[0]!.details).toMatchObject({
        operation: 'create',
        outcome: 'ok',
        attempt: 1,
        httpStatus: 200,
        remoteId: String(arrived.pharmacyOrderId),
        fromState: 'sending',
        toState: 'created',
      });
    }
    expect(progress.at(-1)).toMatchObject({ state: 'idle', environmentId: ENVIRONMENT_ID });
    expect(progress.at(-1)?.counts.created).toBe(5);
  });

  it('holds a locked-out patient (403), rejects an invalid order with its field, and reports each once', async () => {
    const { t, outbox, attention } = setUp();
    const locked = sampleCreateWithClinic({ clinicOrderId: 'OUTCOME-LOCKED', surname: 'Lockhart' });
    const badCourier = sampleCreateWithClinic({ clinicOrderId: 'OUTCOME-COURIER' });
    badCourier.prescription.courierCode = 'PIGEON';
    const [lockedId, courierId] = enqueue(t, [
      orderFrom('v1', locked),
      orderFrom('v1', badCourier),
      ...sampleOrders('OUTCOME-OK', 2),
    ]);

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(result.outcome).toBe('idle');
    expect(result.counts).toMatchObject({ created: 2, held: 1, rejected: 1, queued: 0, in_doubt: 0 });
    expect(t.store.orders.get(lockedId!)).toMatchObject({
      state: 'held',
      lastError: { kind: 'rejected', message: expect.stringContaining('locked out') as string },
    });
    expect(t.store.orders.get(courierId!)).toMatchObject({
      state: 'rejected',
      lastError: { kind: 'rejected', field: 'prescription.courierCode' },
    });
    // Each once; in the order their answers came back, which concurrent sends do not fix (by id here).
    const orderOf = (event: AttentionEvent) => (event.kind === 'order' ? event.orderId : 0);
    expect([...attention].sort((a, b) => orderOf(a) - orderOf(b))).toEqual([
      expect.objectContaining({ kind: 'order', reason: 'locked-out', orderId: lockedId, field: null }),
      expect.objectContaining({
        kind: 'order',
        reason: 'rejected',
        orderId: courierId,
        field: 'prescription.courierCode',
      }),
    ]);
    expect(sandbox.listOrders().map((o) => o.clinicOrderId)).not.toContain('OUTCOME-LOCKED');

    // "Retry now" is a person's decision: both go back to the queue, are sent once more, and end as before.
    expect(outbox.retryNow([lockedId!, courierId!, 999_999])).toBe(2);
    expect(t.store.orders.get(lockedId!)?.state).toBe('queued');
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(t.store.orders.get(lockedId!)?.state).toBe('held');
    expect(t.store.orders.get(courierId!)?.state).toBe('rejected');
    // Refused each time, and held once a run. A create's 403 may be judged by a read of the same order (when no other
    // order was answered meanwhile); a read that gets through sends it once more at once (a 403 is not acted on), on
    // record as a wait. So at most one such wait a run, each followed by the refusal it is held for.
    const tries = t.store.attempts.list(lockedId!).map((a) => `${String(a.httpStatus)} ${a.outcome}`);
    expect(tries.join(', ')).toMatch(/^(403 retryable, )?403 rejected, (403 retryable, )?403 rejected$/);
    expect(t.store.audit.forOrder(lockedId!).filter((e) => e.action === 'order.retry-now')).toHaveLength(1);
  });

  it('refuses a stored body that breaks the schema without sending it, and reports it once', async () => {
    const { t, outbox, attention } = setUp();
    const [good] = sampleOrders('SCHEMA-OK', 1);
    const broken = { ...good!, clinicOrderId: 'SCHEMA-BROKEN', requestBody: '{"customer":{}}' };
    const [, brokenId] = enqueue(t, [good!, broken]);

    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(brokenId!)).toMatchObject({
      state: 'rejected',
      lastError: { kind: 'rejected', message: 'the request is invalid; nothing was sent' },
    });
    expect(t.store.orders.get(brokenId!)?.lastError?.field).toMatch(/^(customer|homeAddress|prescription)/);
    expect(t.store.attempts.list(brokenId!)).toEqual([
      expect.objectContaining({ operation: 'create', outcome: 'rejected', httpStatus: null, latencyMs: null }),
    ]);
    expect(sandbox.listOrders().map((o) => o.clinicOrderId)).not.toContain('SCHEMA-BROKEN');
    expect(attention).toEqual([expect.objectContaining({ reason: 'rejected', orderId: brokenId })]);
  });

  it('pausing mid-batch puts claimed, unsent orders back in the queue; resume sends the rest', async () => {
    const { t, outbox } = setUp({ ratePerSecond: 40 });
    const orders = sampleOrders('MIDPAUSE', 60);
    enqueue(t, orders);
    const run = outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    await vi.waitFor(() => expect(t.store.orders.countByState(ENVIRONMENT_ID).created).toBeGreaterThanOrEqual(5), {
      timeout: 15_000,
      interval: 5,
    });

    outbox.pause(ENVIRONMENT_ID);
    expect(await run).toMatchObject({ outcome: 'blocked', state: 'paused' });
    // Answers already on their way are recorded by the next group commit; then nothing may stay `sending`.
    await vi.waitFor(
      () => {
        const progress = outbox.progress(ENVIRONMENT_ID);
        expect(progress.inFlight).toBe(0);
        expect(progress.counts.sending).toBe(0);
      },
      { timeout: 10_000 },
    );
    const paused = outbox.progress(ENVIRONMENT_ID).counts;
    expect(paused.created).toBeLessThan(60);
    expect(paused.created + paused.queued).toBe(60);

    outbox.resume(ENVIRONMENT_ID);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expectEachCreatedOnce(
      sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });

  it('sends nothing while paused, reports itself blocked, and sends everything after resume', async () => {
    const { t, outbox, attention } = setUp();
    const orders = sampleOrders('PAUSED', 4);
    enqueue(t, orders);
    const before = sandbox.requestCount();

    outbox.pause(ENVIRONMENT_ID, 'checking the batch first');
    const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    expect(blocked).toMatchObject({ outcome: 'blocked', state: 'paused', message: 'checking the batch first' });
    expect(blocked.counts.queued).toBe(4);
    expect(sandbox.requestCount()).toBe(before);

    outbox.resume(ENVIRONMENT_ID);
    const done = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    expect(done.outcome).toBe('idle');
    expectEachCreatedOnce(
      sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );

    // Orders queued later are picked up on notify, without a restart.
    const later = sampleOrders('PAUSED-LATER', 2);
    enqueue(t, later);
    outbox.notify(ENVIRONMENT_ID);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expectEachCreatedOnce(
      sandbox,
      t.store,
      later.map((o) => o.clinicOrderId),
    );
    expect(attention).toEqual([]);
    expect(t.store.audit.page(0, 10_000).map((row) => row.action)).toEqual(
      expect.arrayContaining(['outbox.paused', 'outbox.resumed']),
    );
  });
});

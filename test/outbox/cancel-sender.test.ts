import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AttentionEvent } from '../../main/core/outbox/attention.js';
import { Outbox } from '../../main/core/outbox/outbox.js';
import type { Store } from '../../main/core/store/store.js';
import { NO_FAULTS } from '../../sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import {
  ENVIRONMENT_ID,
  enqueue,
  sampleOrders,
  sandboxClient,
  storeForSandbox,
  type OutboxTestStore,
  requestCancel,
} from './support/outbox-fixture.js';

/** Cancel commands: sent with clinic code and reason, paced and retried like creates, refused ones explained. */

const FAST = {
  concurrency: 2,
  ratePerSecond: 100,
  baseDelayMs: 10,
  maxDelayMs: 80,
  reconcileDelayMs: 10,
  breakerCooldownMs: 50,
};

let sandbox: RunningSandbox;
/** Orders move a status every 30 ms here, so they are dispatched (and no longer cancellable) within a second. */
let fastSandbox: RunningSandbox;
const opened: OutboxTestStore[] = [];

beforeAll(async () => {
  [sandbox, fastSandbox] = await Promise.all([
    startSandbox({ statusStepMs: 3_600_000 }),
    startSandbox({ statusStepMs: 30 }),
  ]);
});

afterEach(() => {
  sandbox.setFaults(NO_FAULTS);
});

afterAll(async () => {
  for (const t of opened) t.close();
  await Promise.all([sandbox?.close(), fastSandbox?.close()]);
});

function setUp(on: RunningSandbox = sandbox) {
  const t = storeForSandbox(on);
  opened.push(t);
  const attention: AttentionEvent[] = [];
  const outbox = new Outbox(
    { store: t.store, clientFor: () => sandboxClient(on), onAttention: (e) => attention.push(e) },
    FAST,
  );
  return { t, outbox, attention };
}

const attemptsOf = (store: Store, orderId: number) =>
  store.attempts.list(orderId).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`);

describe('cancel commands', () => {
  it('are sent with the clinic code and reason; the order becomes cancel_sent and the service cancels it', async () => {
    const { t, outbox, attention } = setUp();
    const [keep, cancel] = enqueue(t, sampleOrders('CANCEL-OK', 2));
    await outbox.runUntilIdle(ENVIRONMENT_ID);

    requestCancel(t.store, cancel!, 'Patient no longer needs it');
    outbox.notify(ENVIRONMENT_ID);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    const order = t.store.orders.get(cancel!)!;
    expect(order).toMatchObject({ state: 'cancel_sent', lastError: null });
    expect(t.store.cancellations.list(cancel!)).toEqual([
      expect.objectContaining({
        state: 'sent',
        reason: 'Patient no longer needs it',
        sentAt: expect.any(String) as string,
      }),
    ]);
    const remote = sandbox.listOrders().find((o) => o.pharmacyOrderId === order.pharmacyOrderId);
    expect(remote).toMatchObject({ status: 'Cancelled', cancelReason: 'Patient no longer needs it' });
    expect(attemptsOf(t.store, cancel!)).toEqual(['create:ok:200', 'cancel:ok:200']);
    expect(t.store.orders.get(keep!)?.state).toBe('created');
    expect(attention).toEqual([]);
  });

  it('wait out an outage; an unanswered cancel is repeated only after a status check, until it shows cancelled', async () => {
    const { t, outbox } = setUp();
    const [id] = enqueue(t, sampleOrders('CANCEL-OFFLINE', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);

    sandbox.setFaults({ outage: true });
    requestCancel(t.store, id!, 'Duplicate prescription');
    outbox.notify(ENVIRONMENT_ID);
    await vi.waitFor(() => expect(t.store.attempts.list(id!).length).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
    expect(t.store.orders.get(id!)?.state).toBe('cancel_requested');
    expect(t.store.cancellations.open(id!)?.state).toBe('requested');

    // The service returns, but the first cancel's answer is lost after it took effect.
    sandbox.setFaults({ outage: false, commitThenDropRate: 1 });
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)?.state).toBe('cancel_sent');
    expect(t.store.cancellations.list(id!)).toEqual([expect.objectContaining({ state: 'sent' })]);
    const attempts = attemptsOf(t.store, id!);
    expect(attempts.slice(0, 2)).toEqual(['create:ok:200', 'cancel:in-doubt:-']);
    // Each repeat waits for a status check (during the outage those fail, and nothing is resent). Once it answers:
    // not cancelled, so the cancel goes again; its answer is lost after it took effect, and the next check shows
    // Cancelled, so the cancel is done without a third send.
    expect(attempts.slice(2, -3).every((a) => a === 'status:retryable:-')).toBe(true);
    expect(attempts.slice(-3)).toEqual(['status:ok:200', 'cancel:in-doubt:-', 'status:ok:200']);
    expect(
      sandbox.listOrders().filter((o) => o.status === 'Cancelled' && o.clinicOrderId.startsWith('CANCEL-OFFLINE')),
    ).toHaveLength(1);
  });

  it('refused by the service (already dispatched) end cancel_refused with the service’s reason, reported once', async () => {
    const { t, outbox, attention } = setUp(fastSandbox);
    const [id] = enqueue(t, sampleOrders('CANCEL-LATE', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    const pharmacyOrderId = t.store.orders.get(id!)?.pharmacyOrderId;
    await vi.waitFor(
      () =>
        expect(fastSandbox.listOrders().find((o) => o.pharmacyOrderId === pharmacyOrderId)?.status).toMatch(
          /Dispatched|Processed/,
        ),
      { timeout: 5_000 },
    );

    requestCancel(t.store, id!, 'Changed our mind');
    outbox.notify(ENVIRONMENT_ID);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)).toMatchObject({
      state: 'cancel_refused',
      lastError: { kind: 'rejected', message: expect.stringContaining('only orders not yet dispatched') as string },
    });
    expect(t.store.cancellations.list(id!)).toEqual([
      expect.objectContaining({
        state: 'refused',
        resultMessage: expect.stringContaining('only orders not yet dispatched') as string,
      }),
    ]);
    expect(attention).toEqual([expect.objectContaining({ kind: 'order', reason: 'cancel-refused', orderId: id })]);
    expect(attemptsOf(t.store, id!)).toEqual(['create:ok:200', 'cancel:rejected:400', 'status:ok:200']);
  });
});

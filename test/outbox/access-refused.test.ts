import { describe, expect, it } from 'vitest';
import { sampleCreateWithClinic } from '../support/orders.js';
import type { ProxiedRequest, ProxyDecision } from './support/fault-proxy.js';
import {
  allOrders,
  ENVIRONMENT_ID,
  enqueue,
  expectEachCreatedOnce,
  orderFrom,
  requestCancel,
  sampleOrders,
} from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * Something in front of the service (a web application firewall, an IP allow-list, a gateway that revoked this
 * client) answering 403 to every request, met by the whole outbox (real SQLite, real HTTP through a loopback proxy in
 * front of the sandbox): no order is held for it, the environment stops as refused with the reason, probes, and goes
 * on by itself once requests get through, every order created once. The service's own 403 for one order still holds
 * that order.
 */

const TUNING = {
  concurrency: 2,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 200,
  maxAttempts: 8,
  breakerThreshold: 5,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
};

const fixture = proxiedSandbox(TUNING);

const FIREWALL_PAGE =
  '<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body><h1>Access denied</h1>' +
  '<p>Your request was blocked by the web application firewall.</p></body></html>';

const REFUSALS = [
  ["a firewall's web page", { status: 403, text: FIREWALL_PAGE, headers: { 'content-type': 'text/html' } }],
  ['a bare 403', { status: 403, text: '', headers: { 'content-type': 'text/plain' } }],
] as const;

/** The service's own envelope, as a service refusing this client (not one patient) would write it. */
const ENVELOPE_403 = {
  status: 403,
  body: { error: 'Forbidden', status: 403, details: { message: 'client not allowed' } },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Forwards the first `n` requests, then answers every request with `refusal` until `lift()`. */
function refuseAfter(n: number, refusal: ProxyDecision) {
  let seen = 0;
  let lifted = false;
  return {
    rule: (_req: ProxiedRequest): ProxyDecision => {
      seen += 1;
      return lifted || seen <= n ? 'forward' : refusal;
    },
    lift: () => {
      lifted = true;
    },
  };
}

const creates = () => fixture.proxy.received().filter((r) => r.url.includes('create-with-clinic')).length;

/** A v1 order for the patient the sandbox refuses by default (Lockhart, 1970-01-01): its own envelope 403. */
function lockedOutOrder(clinicOrderId: string) {
  const body = sampleCreateWithClinic({ clinicOrderId, surname: 'Lockhart' });
  body.customer.dateOfBirth = '1970-01-01';
  return orderFrom('v1', body);
}

describe('403 to every request', () => {
  for (const [what, refusal] of REFUSALS) {
    it(`${what} after 4 requests: 20 orders wait, none held; sending stops as refused, then all are created once`, async () => {
      const { t, outbox, attention, progress } = fixture.setUp(fixture.proxy.url);
      const ids = enqueue(t, sampleOrders(`WAF-${what.length}`, 20));
      const coids = allOrders(t.store).map((o) => o.clinicOrderId);
      const front = refuseAfter(4, refusal);
      fixture.setProxyRule(front.rule);
      const before = creates();

      const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
      expect(blocked).toMatchObject({ outcome: 'blocked', state: 'service-unavailable', accessRefused: true });
      expect(blocked.message).toMatch(
        /^the service \(or something in front of it\) refuses every request with 403: access from this computer may be blocked/,
      );
      // A while refused: a few probes, each refused too.
      await sleep(600);
      const during = allOrders(t.store);
      expect(during.filter((o) => o.state === 'held' || o.state === 'rejected')).toEqual([]);
      expect(during.filter((o) => o.state === 'created')).toHaveLength(4);
      expect(outbox.progress(ENVIRONMENT_ID)).toMatchObject({ state: 'service-unavailable', accessRefused: true });
      // Not one request per order: the first refusal stops sending, then one probe at a time goes.
      expect(during.filter((o) => o.attempts === 0).length).toBeGreaterThan(8);
      expect(creates() - before).toBeLessThan(16);
      const waiting = during.find((o) => o.state === 'queued' && o.lastError !== null);
      expect(waiting?.lastError).toMatchObject({ kind: 'retryable' });
      expect(waiting?.lastError?.message).toMatch(/refuses every request with 403/);

      front.lift();
      const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
      await outbox.stop();

      expect(result).toMatchObject({ outcome: 'idle', state: 'idle', accessRefused: false });
      expectEachCreatedOnce(fixture.sandbox, t.store, coids);
      // No failure counted against any order, no order told about: one notice for the environment.
      for (const id of ids) expect(t.store.outboxQueue.retryMemory(id)?.failures ?? 0).toBe(0);
      expect(attention).toEqual([
        expect.objectContaining({ kind: 'service-unavailable', accessRefused: true, message: blocked.message }),
      ]);
      expect(progress.some((p) => p.state === 'service-unavailable' && p.accessRefused)).toBe(true);
      const actions = (action: string) => t.store.audit.search({ action, limit: 10 });
      expect(actions('outbox.access-refused')).toHaveLength(1);
      expect(actions('outbox.service-restored')).toHaveLength(1);
      expect(actions('outbox.service-unavailable')).toHaveLength(0);
      // Each 403 is on record, as a wait.
      const refused = ids.flatMap((id) => t.store.attempts.list(id)).filter((a) => a.httpStatus === 403);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((a) => a.outcome === 'retryable')).toBe(true);
    });
  }

  it("the service's own envelope to every order (it refuses this client): none held, since each 403's lookup is refused too", async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    enqueue(t, sampleOrders('ENVELOPE-ALL', 12));
    const coids = allOrders(t.store).map((o) => o.clinicOrderId);
    const front = refuseAfter(2, ENVELOPE_403);
    fixture.setProxyRule(front.rule);

    const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    expect(blocked).toMatchObject({ outcome: 'blocked', state: 'service-unavailable', accessRefused: true });
    const during = allOrders(t.store);
    expect(during.filter((o) => o.state === 'held')).toEqual([]);
    // Those whose 403 came just after another order's answer are held for a moment (no lookup judged it), then put back
    // in the queue with its entry once the lookups said otherwise.
    const putBack = during.filter((o) =>
      t.store.audit.forOrder(o.id).some((e) => e.action === 'order.awaiting-access' && e.details?.fromState === 'held'),
    );
    expect(putBack.every((o) => o.state === 'queued')).toBe(true);
    expect(putBack.length).toBeLessThanOrEqual(TUNING.concurrency);

    front.lift();
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expectEachCreatedOnce(fixture.sandbox, t.store, coids);
    expect(attention.filter((a) => a.kind === 'service-unavailable')).toHaveLength(1);
  });

  it("lifted between a create's 403 and its lookup: that order is sent once more and created, not held", async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('LIFTED-BETWEEN', 1));
    // The service refuses this client's creates (the client's renewed token too) until the lookup that judges the
    // 403 arrives: from then on, requests get through.
    let lifted = false;
    fixture.setProxyRule((req) => {
      if (req.url.includes('status-with-clinic-code')) lifted = true;
      return !lifted && req.url.includes('create-with-clinic') ? ENVELOPE_403 : 'forward';
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', counts: { created: 1, held: 0 } });
    expect(attention).toEqual([]);
    // Both creates are on record: the refused one as a wait that says why it went again, then the one that landed.
    const creates = t.store.attempts.list(id!).filter((a) => a.operation === 'create');
    expect(creates.map((a) => [a.httpStatus, a.outcome])).toEqual([
      [403, 'retryable'],
      [200, 'ok'],
    ]);
    expect(creates[0]!.errorMessage).toMatch(/a read of the same order got through just after.*sent once more/);
    expect(t.store.outboxQueue.retryMemory(id!)?.failures ?? 0).toBe(0);
    expectEachCreatedOnce(fixture.sandbox, t.store, [allOrders(t.store)[0]!.clinicOrderId]);
  });

  it('an order in doubt when it began is looked up, never sent again, and created once when requests get through', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    enqueue(t, sampleOrders('WAF-IN-DOUBT', 3));
    const coids = allOrders(t.store).map((o) => o.clinicOrderId);
    let lifted = false;
    let landed: string | undefined;
    fixture.setProxyRule((req) => {
      if (lifted) return 'forward';
      // The first create to arrive lands and its answer is lost; from then on the firewall refuses everything.
      if (landed === undefined && req.url.includes('create-with-clinic')) {
        landed = coids.find((coid) => req.body.includes(`"${coid}"`));
        return 'forward-then-drop';
      }
      return REFUSALS[0][1];
    });

    const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    expect(blocked).toMatchObject({ state: 'service-unavailable', accessRefused: true });
    await sleep(600);
    const lost = allOrders(t.store).find((o) => o.clinicOrderId === landed)!;
    expect(lost.state).toBe('in_doubt');
    // Its lookups were refused too (the probes go to lookups first), and none counts towards holding it.
    const lookups = t.store.attempts.list(lost.id).filter((a) => a.operation === 'lookup');
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups.every((a) => a.httpStatus === 403 && a.outcome === 'retryable')).toBe(true);

    lifted = true;
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expectEachCreatedOnce(fixture.sandbox, t.store, coids);
    expect(t.store.attempts.list(lost.id).filter((a) => a.operation === 'create')).toHaveLength(1);
  });

  it('an open cancel the firewall refuses (its status check too) is not refused: sent once requests get through', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('WAF-CANCEL', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(t.store.orders.get(id!)?.state).toBe('created');
    const front = refuseAfter(0, REFUSALS[0][1]);
    fixture.setProxyRule(front.rule);
    requestCancel(t.store, id!, 'patient moved');
    outbox.notify(ENVIRONMENT_ID);

    const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    expect(blocked).toMatchObject({ state: 'service-unavailable', accessRefused: true });
    await sleep(400);
    expect(t.store.orders.get(id!)?.state).toBe('cancel_requested');
    expect(t.store.cancellations.list(id!).map((c) => c.state)).toEqual(['requested']);

    front.lift();
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(t.store.orders.get(id!)?.state).toBe('cancel_sent');
    expect(attention.filter((a) => a.kind === 'order')).toEqual([]);
  });
});

describe("the service's own 403 for one order", () => {
  it('among successes: exactly that order is held, and sending never stops', async () => {
    const { t, outbox, attention, progress } = fixture.setUp(fixture.proxy.url);
    const [first, ...rest] = sampleOrders('ONE-LOCKED', 19);
    const ids = enqueue(t, [first!, lockedOutOrder('ONE-LOCKED-PATIENT'), ...rest]);
    const lockedId = ids[1]!;
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', counts: { created: 19, held: 1, queued: 0 } });
    expect(t.store.orders.get(lockedId)).toMatchObject({
      state: 'held',
      lastError: { kind: 'rejected', message: expect.stringContaining('locked out') as string },
    });
    expect(attention).toEqual([expect.objectContaining({ kind: 'order', reason: 'locked-out', orderId: lockedId })]);
    expect(progress.some((p) => p.state === 'service-unavailable')).toBe(false);
    // Held for its second 403 at most: once when another order was answered while it was out (no read judged it),
    // twice when its read got through first (sent once more at once, the first on record as a wait).
    const tries = t.store.attempts.list(lockedId).map((a) => `${a.operation} ${String(a.httpStatus)} ${a.outcome}`);
    expect(tries.join(', ')).toMatch(/^(create 403 retryable, )?create 403 rejected$/);
  });

  it("the service's own envelope to every request, for fewer orders than the threshold: none held, sending stops as refused", async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    enqueue(t, sampleOrders('SMALL-CLINIC', 2));
    const coids = allOrders(t.store).map((o) => o.clinicOrderId);
    const front = refuseAfter(0, ENVELOPE_403);
    fixture.setProxyRule(front.rule);

    const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    expect(blocked).toMatchObject({ outcome: 'blocked', state: 'service-unavailable', accessRefused: true });
    // Neither is held, nor ever was (the second may still be in flight: the stop came with the first's answer).
    expect(allOrders(t.store).filter((o) => o.state === 'held')).toEqual([]);
    expect(t.store.audit.search({ action: 'order.held', limit: 10 })).toEqual([]);
    expect(attention.filter((a) => a.kind === 'order')).toEqual([]);
    // Each create's 403 was judged by one lookup of the same order: nothing recorded for it.
    expect(fixture.proxy.received().some((r) => r.url.includes('status-with-clinic-code'))).toBe(true);
    expect(
      allOrders(t.store)
        .flatMap((o) => t.store.attempts.list(o.id))
        .map((a) => a.operation),
    ).not.toContain('lookup');

    // Lifted only once the second order's create and lookup are answered: a lift between the two would be a
    // firewall that lets the lookup through, and its create's 403 then the order's own (held).
    while (allOrders(t.store).some((o) => o.state === 'sending')) await sleep(10);
    expect(allOrders(t.store).filter((o) => o.state === 'held')).toEqual([]);
    front.lift();
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expectEachCreatedOnce(fixture.sandbox, t.store, coids);
  });

  it('six locked-out patients in a row: each is held as its own, sending never stops, and the rest are created', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const locked = Array.from({ length: 6 }, (_, i) => lockedOutOrder(`RUN-LOCKED-${i + 1}`));
    const ids = enqueue(t, [...locked, ...sampleOrders('RUN-OK', 4)]);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    // Five in a row would look like a refusal of this client, but each 403's lookup of the same order gets through:
    // the environment lets requests through, so each refusal is the order's own.
    expect(result).toMatchObject({ outcome: 'idle', counts: { created: 4, held: 6, queued: 0 } });
    for (const id of ids.slice(0, 6)) expect(t.store.orders.get(id)?.state).toBe('held');
    expect(t.store.audit.search({ action: 'outbox.access-refused', limit: 10 })).toHaveLength(0);
  });

  it("a firewall blocking one order's body: that order is held after one stop, the others are created", async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('ONE-BLOCKED', 8);
    const blockedCoid = orders[2]!.clinicOrderId;
    const ids = enqueue(t, orders);
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic') && req.body.includes(blockedCoid) ? REFUSALS[0][1] : 'forward',
    );
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', counts: { created: 7, held: 1 } });
    expect(t.store.orders.get(ids[2]!)).toMatchObject({
      state: 'held',
      lastError: { message: expect.stringContaining('web page') as string },
    });
    expect(attention.filter((a) => a.kind === 'order')).toEqual([
      expect.objectContaining({ reason: 'locked-out', orderId: ids[2] }),
    ]);
    expect(t.store.audit.search({ action: 'outbox.access-refused', limit: 10 })).toHaveLength(1);
  });
});

describe('what is stored of a refusal', () => {
  it('carries no patient value from an order body the firewall quotes back', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const body = sampleCreateWithClinic({ clinicOrderId: 'WAF-ECHO', surname: 'Quotedsurname' });
    const [id] = enqueue(t, [orderFrom('v1', body)]);
    const front = refuseAfter(0, {
      status: 403,
      text: `<html><head><title>Blocked: surname=${body.customer.surname}</title></head></html>`,
      headers: { 'content-type': 'text/html' },
    });
    fixture.setProxyRule(front.rule);
    const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    await outbox.stop();

    expect(blocked.message).toContain('[patient]');
    const stored = JSON.stringify([
      blocked.message,
      allOrders(t.store).map((o) => o.lastError),
      t.store.audit.search({ limit: 100 }),
      t.store.attempts.list(id!),
    ]);
    expect(stored).not.toContain('Quotedsurname');
  });
});

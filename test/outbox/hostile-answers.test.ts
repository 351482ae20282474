import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS } from '../../main/core/service/error-mapping.js';
import { pharmacyIdIn } from '../../main/core/outbox/reconcile.js';
import { statusRecordListSchema } from '../../shared/status.js';
import { parseWireJson } from '../../shared/wire-json.js';
import {
  ENVIRONMENT_ID,
  allOrders,
  enqueue,
  expectEachCreatedOnce,
  requestCancel,
  sampleOrders,
} from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * Answers an independent Order Service may give that our sandbox never does, met by the whole outbox (real
 * SQLite, real HTTP through a loopback proxy in front of the sandbox): every order still ends once at the service,
 * none is rejected for an answer that does not say "not applied", and nothing spins.
 */

const TUNING = {
  concurrency: 2,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 200,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
};

const fixture = proxiedSandbox(TUNING);

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

/**
 * Runs the outbox until it is idle, or until `ms` have passed (a run the old code kept going for ever ends, to be
 * judged by what it left), then stops it.
 */
async function runForAtMost(outbox: ReturnType<typeof fixture.setUp>['outbox'], ms: number) {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  return outbox.runUntilIdle(ENVIRONMENT_ID, { signal: stop.signal }).finally(async () => {
    clearTimeout(timer);
    await outbox.stop();
  });
}

/** A gateway's 503 before the service saw a create: the create is in doubt, and the service does not have it. */
const SERVICE_UNAVAILABLE = { status: 503, body: { error: 'Service Unavailable', status: 503 } };
/** A 409 Conflict with no body, naming nothing. */
const BARE_CONFLICT = { status: 409, body: undefined };

describe('Retry-After beyond reason', () => {
  it('a 429 asking for 10^30 s: the orders wait at most an hour, recorded as rate-limited, and nothing spins', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    enqueue(t, sampleOrders('HUGE-WAIT', 2));
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic')
        ? { status: 429, body: { error: 'slow down', status: 429 }, headers: { 'retry-after': '9'.repeat(31) } }
        : 'forward',
    );
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 1_000);
    await outbox.runUntilIdle(ENVIRONMENT_ID, { signal: stop.signal }).catch(() => undefined);
    await outbox.stop();

    const before = Date.now();
    const orders = allOrders(t.store);
    expect(orders.map((o) => [o.state, o.lastError?.kind])).toEqual([
      ['queued', 'retryable'],
      ['queued', 'retryable'],
    ]);
    for (const order of orders) {
      const due = Date.parse(order.nextAttemptAt ?? '');
      expect(due).toBeGreaterThan(before + MAX_RETRY_AFTER_MS - 60_000);
      expect(due).toBeLessThanOrEqual(before + MAX_RETRY_AFTER_MS + 1_000);
    }
    // One create each, then the wait: no request loop, and no timer overflowing into a busy loop.
    expect(fixture.proxy.received().filter((r) => r.url.includes('create-with-clinic'))).toHaveLength(2);
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
  });
});

describe("a proxy's own page for every create", () => {
  it('each lookup waits a growing backoff, not the same short grace every time', async () => {
    // The jitter at its top: each wait is the backoff's ceiling, base·2^n, never less than reconcileDelayMs.
    const { t, outbox } = fixture.setUp(fixture.proxy.url, () => 0.999);
    const [id] = enqueue(t, sampleOrders('WAF-PAGE', 1));
    const page = '<!doctype html><html><body><h1>Request blocked</h1></body></html>';
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic')
        ? { status: 200, body: page, headers: { 'content-type': 'text/html' } }
        : 'forward',
    );
    // One order alone is never given up on for this (no other order got an answer meanwhile): watched for 1.5 s.
    await runForAtMost(outbox, 1_500).catch(() => undefined);

    const attempts = t.store.attempts.list(id!);
    expect(attempts.map((a) => `${a.operation}:${a.outcome}`).slice(0, 4)).toEqual([
      'create:in-doubt',
      'lookup:ok',
      'create:in-doubt',
      'lookup:ok',
    ]);
    // The wait from each unanswered create to its lookup, against the ceiling of that retry.
    const waits = attempts.flatMap((a, i) =>
      a.operation === 'lookup' ? [Date.parse(a.startedAt) - Date.parse(attempts[i - 1]!.startedAt)] : [],
    );
    // 10, 20, 40, 80, 160, then 200 ms: about 700 ms for six, where the grace alone (10 ms) allowed dozens.
    expect(waits.length).toBeGreaterThanOrEqual(5);
    expect(waits.length).toBeLessThan(15);
    waits.forEach((wait, n) =>
      expect(wait).toBeGreaterThanOrEqual(Math.min(TUNING.maxDelayMs, TUNING.baseDelayMs * 2 ** n) * 0.99 - 5),
    );
  });
});

describe('lookups the service answers with a refusal, after an unanswered create', () => {
  for (const [what, refusal] of [
    [
      "a proxy's 404 page",
      {
        status: 404,
        body: '<html><body><h1>404 Not Found</h1>nginx</body></html>',
        headers: { 'content-type': 'text/html' },
      },
    ],
    ['a plain 404', { status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain' } }],
    ["the service's own 403", { status: 403, body: { error: 'Forbidden', status: 403 } }],
  ] as const) {
    it(`${what}: never taken for "no such order", so it is not sent again, and held for a person after ${TUNING.maxAttempts}`, async () => {
      const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
      const [id] = enqueue(t, sampleOrders(`REFUSED-LOOKUP-${what.length}`, 1));
      const creates = () => fixture.proxy.received().filter((r) => r.url.includes('create-with-clinic')).length;
      const before = creates();
      fixture.setProxyRule((req) => {
        // The create lands at the service, and its answer is lost.
        if (req.url.includes('create-with-clinic')) return 'forward-then-drop';
        if (req.url.includes('status-with-clinic-code')) return refusal;
        return 'forward';
      });
      const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
      await outbox.stop();

      expect(result.outcome).toBe('idle');
      expect(creates() - before).toBe(1);
      const held = t.store.orders.get(id!)!;
      expect(held.state).toBe('held');
      expect(held.lastError?.message).toMatch(
        new RegExp(`^the service refused ${TUNING.maxAttempts} lookups of this order since it was sent`),
      );
      expect(t.store.attempts.list(id!).map((a) => a.operation)).toEqual([
        'create',
        ...Array<string>(TUNING.maxAttempts).fill('lookup'),
      ]);
      expect(attention.filter((a) => a.kind === 'order')).toHaveLength(1);
    });
  }
});

describe("a firewall's 403 to every lookup, after an unanswered create", () => {
  it('refuses the environment, not the order: it stays in doubt, never sent again, never held', async () => {
    const { t, outbox, attention, progress } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('FIREWALLED-LOOKUP', 1));
    const creates = () => fixture.proxy.received().filter((r) => r.url.includes('create-with-clinic')).length;
    const before = creates();
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) return 'forward-then-drop';
      if (req.url.includes('status-with-clinic-code')) {
        return { status: 403, body: 'Forbidden', headers: { 'content-type': 'text/plain' } };
      }
      return 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    // A few probes, each a lookup the firewall refuses too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'blocked', state: 'service-unavailable', accessRefused: true });
    expect(result.message).toMatch(/^the service \(or something in front of it\) refuses every request with 403/);
    expect(progress.some((p) => p.accessRefused)).toBe(true);
    expect(creates() - before).toBe(1);
    const order = t.store.orders.get(id!)!;
    expect(order.state).toBe('in_doubt');
    const lookups = t.store.attempts.list(id!).filter((a) => a.operation === 'lookup');
    expect(lookups.length).toBeGreaterThan(1);
    // Recorded as waits, not refusals: none counts towards holding the order for refused lookups.
    expect(lookups.every((a) => a.httpStatus === 403 && a.outcome === 'retryable')).toBe(true);
    expect(attention.filter((a) => a.kind === 'order')).toEqual([]);
    expect(attention.filter((a) => a.kind === 'service-unavailable')).toEqual([
      expect.objectContaining({ accessRefused: true }),
    ]);
  });
});

describe('a service that lists the order under its clinic order id in other case', () => {
  it('is not taken as this order, nor sent again: held for a person at the first miss, naming the record', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('CASED', 1);
    const [id] = enqueue(t, [order!]);
    const coid = order!.clinicOrderId;
    let creates = 0;
    fixture.setProxyRule((req) => {
      // The first create lands and its answer is lost; the resend is answered "duplicate".
      if (req.url.includes('create-with-clinic') && ++creates === 1) return 'forward-then-drop';
      if (req.url.includes('status-with-clinic-code')) {
        return { rewrite: (body) => body.replaceAll(`"${coid}"`, `"${coid.toLowerCase()}"`) };
      }
      return 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    const held = t.store.orders.get(id!)!;
    expect(held.state).toBe('held');
    expect(held.lastError?.message).toContain(
      `does not list this order as it is, but lists "${coid.toLowerCase()}" (pharmacy order id`,
    );
    // Sent once: before, the miss was believed and the order sent again (answered "duplicate" here; a service
    // that does not refuse a clinic order id it has would have made a second order).
    expect(t.store.attempts.list(id!).filter((a) => a.operation === 'create')).toHaveLength(1);
  });
});

describe('a redirect after the write', () => {
  it('303 See Other to each first create, after the service stored it: looked up, each created once, none rejected', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('SEE-OTHER', 6);
    const ids = enqueue(t, orders);
    const redirected = new Set<string>();
    fixture.setProxyRule((req) => {
      if (!req.url.includes('create-with-clinic')) return 'forward';
      const clinicOrderId = /"clinicOrderId":"([^"]+)"/.exec(req.body)?.[1] ?? '';
      if (redirected.has(clinicOrderId)) return 'forward';
      redirected.add(clinicOrderId);
      return { forwardThen: { status: 303, body: {}, headers: { location: '/api/v2/Order/status?orderId=1' } } };
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 6, rejected: 0, held: 0, in_doubt: 0, queued: 0 });
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    for (const id of ids) {
      const attempts = t.store.attempts.list(id).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`);
      expect(attempts).toEqual(['create:in-doubt:303', 'lookup:ok:200']);
    }
  });
});

describe('a duplicate answered with another status', () => {
  it('409 "duplicate clinicOrderId" after a create whose answer was lost means created, not rejected', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('CONFLICT', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    let lookups = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        // The first is stored and its answer lost; the second is refused the way some services say "duplicate".
        if (creates === 1) return 'forward-then-drop';
        return {
          status: 409,
          body: {
            error: 'Conflict',
            status: 409,
            details: { field: 'prescription.clinicOrderId', message: 'duplicate clinicOrderId' },
          },
        };
      }
      // The first lookup misses (a replica behind the write), so the order is sent again.
      if (req.url.includes('status-with-clinic-code') && (lookups += 1) === 1) return { status: 200, body: [] };
      return 'forward';
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 1, rejected: 0, held: 0, in_doubt: 0 });
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    expect(t.store.attempts.list(id!).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`)).toEqual([
      'create:in-doubt:-',
      'lookup:ok:200',
      'create:rejected:409',
      'lookup:ok:200',
    ]);
  });
});

describe("a success that is another order's", () => {
  it('a 201 naming another clinic order id (after the sandbox stored ours): looked up, created with its own id', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('WRONG-ANSWER', 3);
    const ids = enqueue(t, orders);
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic')
        ? { forwardThen: { status: 201, body: { orderId: 999_999, clinicOrderId: 'SOMEONE-ELSES-1' } } }
        : 'forward',
    );

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 3, rejected: 0, held: 0, in_doubt: 0 });
    // Each with the id the service gave it (a cancel or status lookup for 999999 would be about another order).
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    for (const id of ids) {
      expect(t.store.orders.get(id)?.pharmacyOrderId).not.toBe(999_999);
      const attempts = t.store.attempts.list(id).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`);
      expect(attempts).toEqual(['create:in-doubt:201', 'lookup:ok:200']);
    }
  });
});

describe('a lookup that lags the write', () => {
  it('after "duplicate clinicOrderId" a lookup that misses again waits for the listing: never sent a third time', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('LAGGING', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    let lookups = 0;
    fixture.setProxyRule((req) => {
      // The first create is stored and its answer lost; the sandbox refuses the next as a duplicate (400).
      if (req.url.includes('create-with-clinic')) return (creates += 1) === 1 ? 'forward-then-drop' : 'forward';
      // The status side lags the write: five lookups miss before it lists the order.
      if (req.url.includes('status-with-clinic-code') && (lookups += 1) <= 5) return { status: 200, body: [] };
      return 'forward';
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 1, rejected: 0, held: 0, in_doubt: 0 });
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    // One resend after the first miss (nothing said the service had it then), none after its "duplicate".
    expect(creates).toBe(2);
    expect(t.store.attempts.list(id!).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`)).toEqual([
      'create:in-doubt:-',
      'lookup:ok:200',
      'create:rejected:400',
      'lookup:ok:200',
      'lookup:ok:200',
      'lookup:ok:200',
      'lookup:ok:200',
      'lookup:ok:200',
    ]);
    expect(t.store.attempts.list(id!).at(-2)?.errorMessage).toMatch(/says it has this order, but its lookup does not/);
  });
});

describe('a bare 409 Conflict that is not the order', () => {
  it('after a 503 the service never acted on, a 409 to every resend and no listing: held for a person, not in doubt for good', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('NEVER-THERE', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    fixture.setProxyRule((req) => {
      // A gateway's 503 before the service saw the create (in doubt), then a 409 naming nothing to every resend: a
      // faulty or hostile service, or a conflict of its own (a lock). The sandbox never gets the order.
      if (req.url.includes('create-with-clinic')) {
        return (creates += 1) === 1 ? SERVICE_UNAVAILABLE : BARE_CONFLICT;
      }
      return 'forward';
    });
    // Before, the order stayed in doubt for good, looked up for ever: give up waiting rather than hang.
    const result = await runForAtMost(outbox, 5_000);

    // Never created, and never sent again after the 409 (the service may have it), but a person is told.
    expect(result.counts).toMatchObject({ created: 0, held: 1, in_doubt: 0 });
    expect(fixture.sandbox.listOrders().filter((o) => o.clinicOrderId === order!.clinicOrderId)).toHaveLength(0);
    expect(creates).toBe(2);
    const trail = t.store.attempts.list(id!).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`);
    expect(trail.slice(0, 3)).toEqual(['create:in-doubt:503', 'lookup:ok:200', 'create:rejected:409']);
    expect(trail.slice(3)).toEqual(Array<string>(TUNING.maxAttempts).fill('lookup:ok:200'));
    expect(t.store.orders.get(id!)?.lastError?.message).toMatch(
      /answered 409 Conflict.*has not listed this order in 8 lookups: it is not sent again/,
    );
    expect(attention).toEqual([expect.objectContaining({ kind: 'order', reason: 'gave-up', orderId: id })]);
  });

  it("a bare 409 and a lookup listing another clinic's order under this id: not taken as this order", async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('CONFLICT-OTHER', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        return (creates += 1) === 1 ? SERVICE_UNAVAILABLE : BARE_CONFLICT;
      }
      // A service that ignores the clinic filter: another clinic's order under the same clinic order id.
      if (req.url.includes('status-with-clinic-code')) {
        const other = {
          clinicOrderId: order!.clinicOrderId,
          clinicCode: 'CLINIC-ELSEWHERE',
          pharmacyOrderId: '424242',
          orderStatus: 'Prescription at Pharmacy',
        };
        return { status: 200, body: [other] };
      }
      return 'forward';
    });
    const result = await runForAtMost(outbox, 5_000);

    expect(result.counts).toMatchObject({ created: 0, held: 1 });
    expect(t.store.orders.get(id!)).toMatchObject({ state: 'held', pharmacyOrderId: null });
    expect(attention).toEqual([expect.objectContaining({ reason: 'gave-up', orderId: id })]);
  });

  it('a bare 409 whose order the lookup lists after a few misses: created with its id, never held', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('CONFLICT-LAG', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    let lookups = 0;
    fixture.setProxyRule((req) => {
      // The first create is stored and its answer lost; the resend gets a bare 409; the listing lags 4 lookups.
      if (req.url.includes('create-with-clinic')) {
        return (creates += 1) === 1 ? 'forward-then-drop' : BARE_CONFLICT;
      }
      if (req.url.includes('status-with-clinic-code') && (lookups += 1) <= 4) return { status: 200, body: [] };
      return 'forward';
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 1, held: 0, in_doubt: 0 });
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    expect(creates).toBe(2);
    expect(t.store.attempts.list(id!).at(-1)).toMatchObject({ operation: 'lookup', outcome: 'ok' });
    expect(attention).toEqual([]);
  });
});

describe('"not found" as a 400', () => {
  it('a lookup answered 400 "Order not found" (the status pages\' way) is not found: sent again, created once', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('NOT-FOUND-400', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    fixture.setProxyRule((req) => {
      // A gateway gives up before the service saw the create: in doubt, and the service does not have it.
      if (req.url.includes('create-with-clinic') && (creates += 1) === 1)
        return { status: 504, body: 'Gateway Timeout' };
      if (req.url.includes('status-with-clinic-code')) {
        return { status: 400, body: { error: 'Order not found', status: 400 } };
      }
      return 'forward';
    });
    // Before, the order stayed in doubt for good: give up waiting rather than hang.
    const result = await runForAtMost(outbox, 10_000);

    expect(result.counts).toMatchObject({ created: 1, in_doubt: 0 });
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    expect(t.store.attempts.list(id!).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`)).toEqual([
      'create:in-doubt:504',
      'lookup:rejected:400',
      'create:ok:200',
    ]);
  });

  it('a 400 about something else (the clinic code) leaves the order in doubt: never sent again on it', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('OTHER-400', 1);
    const [id] = enqueue(t, [order!]);
    let lookups = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) return 'forward-then-drop';
      if (req.url.includes('status-with-clinic-code') && (lookups += 1) <= 2) {
        return { status: 400, body: { error: 'Invalid clinic code', status: 400 } };
      }
      return 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 1, in_doubt: 0 });
    expect(t.store.attempts.list(id!).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`)).toEqual([
      'create:in-doubt:-',
      'lookup:rejected:400',
      'lookup:rejected:400',
      'lookup:ok:200',
    ]);
  });
});

describe('a refusal that quotes the patient', () => {
  it("is stored, audited and told without the order's patient values, keeping what was wrong", async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('ECHO', 1);
    const [id] = enqueue(t, [order!]);
    const body = JSON.parse(order!.requestBody) as { customer: Record<string, string> };
    const { surname, dateOfBirth, email } = body.customer;
    const echoed = `Customer ${surname!.toUpperCase()} (born ${dateOfBirth}, ${email}) has an invalid postcode`;
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic')
        ? { status: 400, body: { message: echoed, errors: { 'customer.surname': [`'${surname}' is not allowed`] } } }
        : 'forward',
    );
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    const stored = t.store.orders.get(id!)!;
    expect(stored.state).toBe('rejected');
    const everywhere = JSON.stringify([
      stored.lastError,
      t.store.attempts.list(id!),
      t.store.audit.forOrder(id!),
      attention,
    ]);
    for (const value of [surname!, dateOfBirth!, email!])
      expect(everywhere.toLowerCase()).not.toContain(value.toLowerCase());
    expect(stored.lastError?.message).toContain(
      'Customer [patient] (born [patient], [patient]) has an invalid postcode',
    );
  });
});

describe('a cancel refusal or a lookup error that quotes the patient', () => {
  const echoOf = (requestBody: string) => {
    const { surname, dateOfBirth } = (JSON.parse(requestBody) as { customer: Record<string, string> }).customer;
    return { values: [surname!, dateOfBirth!], text: `Order for ${surname!} (${dateOfBirth!}) cannot be changed now` };
  };
  const nowhere = (everywhere: string, values: string[]) => {
    for (const value of values) expect(everywhere.toLowerCase()).not.toContain(value.toLowerCase());
    expect(everywhere).toContain('Order for [patient] ([patient]) cannot be changed now');
  };

  it("a cancel's refusal is stored and audited without the patient's values", async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('ECHO-CANCEL', 1);
    const [id] = enqueue(t, [order!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    requestCancel(t.store, id!, 'no longer needed');
    const echo = echoOf(order!.requestBody);
    fixture.setProxyRule((req) =>
      req.url.includes('Order/cancel') ? { status: 400, body: { error: echo.text, status: 400 } } : 'forward',
    );
    outbox.notify(ENVIRONMENT_ID);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    const stored = t.store.orders.get(id!)!;
    expect(stored.state).toBe('cancel_refused');
    nowhere(JSON.stringify([stored.lastError, t.store.attempts.list(id!), t.store.audit.forOrder(id!)]), echo.values);
  });

  it("an in-doubt create's lookup error is stored without the patient's values", async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('ECHO-LOOKUP', 1);
    const [id] = enqueue(t, [order!]);
    const echo = echoOf(order!.requestBody);
    let lookups = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) return 'forward-then-drop';
      if (req.url.includes('Order/status') && ++lookups === 1) return { status: 400, body: { error: echo.text } };
      return 'forward';
    });
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)?.state).toBe('created');
    const lookupsStored = t.store.attempts.list(id!).filter((a) => a.operation === 'lookup');
    expect(lookupsStored.map((a) => a.outcome)).toEqual(['rejected', 'ok']);
    nowhere(JSON.stringify([t.store.attempts.list(id!), t.store.audit.forOrder(id!)]), echo.values);
  });
});

describe('a token without the scope', () => {
  it('403 insufficient_scope stops the environment for sign-in with every order kept queued, none held', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    enqueue(t, sampleOrders('NO-SCOPE', 3));
    fixture.setProxyRule(() => ({
      status: 403,
      body: '',
      headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="cloudrx_orderservice"' },
    }));

    const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    await outbox.stop();

    expect(blocked).toMatchObject({ outcome: 'blocked', state: 'sign-in-required' });
    expect(allOrders(t.store).map((o) => o.state)).toEqual(['queued', 'queued', 'queued']);
    expect(attention.map((a) => a.kind)).toEqual(['sign-in-required']);
  });
});

describe('status records spelled differently', () => {
  it('a lost cancel checked against "CANCELLED " is done: sent once, never refused', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('UPPER-CANCEL', 1));
    // The proxy's record spans the file's tests.
    const cancelsBefore = fixture.proxy.received().filter((r) => r.url.includes('Order/cancel')).length;
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    requestCancel(t.store, id!, 'no longer needed');
    fixture.setProxyRule((req) => {
      if (req.url.includes('Order/cancel')) return 'forward-then-drop';
      // This service writes its statuses in capitals, with a stray space.
      if (req.url.includes('Order/status')) return { rewrite: (body) => body.replace('"Cancelled"', '"CANCELLED "') };
      return 'forward';
    });
    outbox.notify(ENVIRONMENT_ID);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    expect(t.store.orders.get(id!)?.state).toBe('cancel_sent');
    expect(t.store.attempts.list(id!).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`)).toEqual([
      'create:ok:200',
      'cancel:in-doubt:-',
      'status:ok:200',
    ]);
    expect(fixture.proxy.received().filter((r) => r.url.includes('Order/cancel'))).toHaveLength(cancelsBefore + 1);
  });

  it("a cancel answered 2xx with the order's record showing it dispatched is refused at once, not taken as sent", async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('DISPATCHED-CANCEL', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    requestCancel(t.store, id!, 'no longer needed');
    fixture.setProxyRule((req) =>
      req.url.includes('Order/cancel')
        ? { rewrite: (body) => body.replace(/"orderStatus":"[^"]*"/, '"orderStatus":"PRESCRIPTION DISPATCHED"') }
        : 'forward',
    );
    outbox.notify(ENVIRONMENT_ID);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    const order = t.store.orders.get(id!)!;
    expect(order.state).toBe('cancel_refused');
    expect(order.lastError?.message).toBe(
      'the service took the cancel, but its answer shows the order "Prescription Dispatched": it was not cancelled',
    );
    expect(attention.filter((a) => a.kind === 'order').map((a) => a.kind === 'order' && a.reason)).toEqual([
      'cancel-refused',
    ]);
  });

  it('a lookup naming the clinic order id as a number still finds the order', () => {
    const records = statusRecordListSchema.parse(
      parseWireJson('[{"clinicOrderId":12345,"pharmacyOrderId":"77","orderStatus":"waiting payment success"}]'),
    );
    expect(records[0]).toMatchObject({ clinicOrderId: '12345', orderStatus: 'Waiting Payment Success' });
    expect(pharmacyIdIn(records, '12345')).toBe(77);
  });
});

describe('a lookup answer that lists other orders', () => {
  it('an order in doubt takes the id of the record naming it, not a smaller id of a record naming none', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('MIXED-LIST', 2);
    enqueue(t, orders);
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) return 'forward-then-drop';
      if (req.url.includes('status-with-clinic-code')) {
        // Another of the clinic's orders, listed without its clinic order id.
        return {
          rewrite: (body) => {
            const listed = JSON.parse(body) as unknown[];
            return JSON.stringify([{ clinicOrderId: null, pharmacyOrderId: '1', orderStatus: 'Cancelled' }, ...listed]);
          },
        };
      }
      return 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(result.counts).toMatchObject({ created: 2, in_doubt: 0 });
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });

  it('records naming no clinic order id are this order only if they agree on one id', () => {
    const record = (clinicOrderId: string | null, pharmacyOrderId: string) => ({ clinicOrderId, pharmacyOrderId });
    expect(pharmacyIdIn([record(null, '5')], 'A-1')).toBe(5);
    expect(pharmacyIdIn([record(null, '5'), record(null, '5')], 'A-1')).toBe(5);
    // Which one is ours? Not said: neither is taken (the order stays in doubt rather than adopt another's id).
    expect(pharmacyIdIn([record(null, '5'), record(null, '9')], 'A-1')).toBeNull();
    expect(pharmacyIdIn([record(null, '5'), record('A-1', '9'), record('B-2', '3')], 'A-1')).toBe(9);
  });
});

describe("a cancel's status check answered with another order's record", () => {
  it("a lost cancel is not taken as done on a 'Cancelled' naming another clinic order id: asked in the order's clinic, sent again", async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('CANCEL-CHECK', 1, 'CLINIC-B'));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    const { pharmacyOrderId, clinicOrderId } = t.store.orders.get(id!)!;
    requestCancel(t.store, id!, 'no longer needed');
    // Someone else's record under our pharmacy order id, cancelled: a service or cache that mixed its answers up.
    const othersRecord = {
      clinicOrderId: 'SOMEONE-ELSES-1',
      pharmacyOrderId: String(pharmacyOrderId),
      orderStatus: 'Cancelled',
    };
    let cancels = 0;
    const before = fixture.proxy.received().length;
    fixture.setProxyRule((req) => {
      if (req.url.includes('Order/cancel')) {
        cancels += 1;
        // The first cancel gets a 503 (it may have acted): its status is checked before it goes again.
        return cancels === 1 ? { status: 503, body: { error: 'busy', status: 503 } } : 'forward';
      }
      if (req.url.includes('status-with-clinic-code')) return { status: 200, body: [othersRecord] };
      if (req.url.includes('Order/status')) return { status: 200, body: othersRecord };
      return 'forward';
    });
    outbox.notify(ENVIRONMENT_ID);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    // Sent again, so the pharmacy has it cancelled, where taking the other record's word left it live.
    expect(fixture.sandbox.listOrders().find((o) => o.clinicOrderId === clinicOrderId)?.status).toBe('Cancelled');
    expect(t.store.orders.get(id!)?.state).toBe('cancel_sent');
    const attempts = t.store.attempts.list(id!);
    expect(attempts.map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`)).toEqual([
      'create:ok:200',
      'cancel:in-doubt:503',
      'status:ok:200',
      'cancel:ok:200',
    ]);
    expect(attempts.find((a) => a.operation === 'status')?.remoteId).toBeNull();
    // The check asked within the order's own clinic, never the unscoped status?orderId=.
    const checks = fixture.proxy
      .received()
      .slice(before)
      .filter((r) => r.url.includes('Order/status'));
    expect(checks.map((r) => r.url)).toEqual([
      `/api/v2/Order/status-with-clinic-code?clinicCode=CLINIC-B&orderId=${pharmacyOrderId}`,
    ]);
  });
});

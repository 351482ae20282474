import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A service that answers a lookup finding nothing with `204 No Content` (what ASP.NET Core does by default when an
 * action returns null) rather than `200 []`. Read as "the answer was empty", each such lookup failed and was asked
 * again for good: an order whose create never reached the service stayed in doubt, never sent, no one told. Real
 * SQLite, real HTTP through a loopback proxy in front of the sandbox.
 */

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 100,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: 0,
});

describe('a lookup answered 204 No Content (or 200 null) when the service has no such order', () => {
  it.each([
    ['204 No Content', { status: 204, text: '' }],
    // The same framework's answer with its no-content formatter off.
    ['200 null', { status: 200, text: 'null' }],
  ])('%s is a miss: the order whose create never arrived is sent again and created once', async (_name, answer) => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders(`NO-CONTENT-${answer.status}`, 1);
    enqueue(t, orders);
    const clinicOrderId = orders[0]!.clinicOrderId;
    let creates = 0;
    let noContent = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        // A gateway's 503 before the service saw it: in doubt, so the order is looked up before it goes again.
        return creates === 1 ? { status: 503, body: { error: 'Service Unavailable', status: 503 } } : 'forward';
      }
      const held = fixture.sandbox.listOrders().some((order) => order.clinicOrderId === clinicOrderId);
      if (req.url.includes('status-with-clinic-code') && !held) {
        noContent += 1;
        return answer;
      }
      return 'forward';
    });

    let result;
    try {
      result = await outbox
        .runUntilIdle(ENVIRONMENT_ID, { signal: AbortSignal.timeout(4_000) })
        .catch(() => 'still running after 4 s');
    } finally {
      await outbox.stop();
    }

    expect(result).toMatchObject({ outcome: 'idle' });
    expect(noContent).toBe(1);
    expect(creates).toBe(2);
    expectEachCreatedOnce(fixture.sandbox, t.store, [clinicOrderId]);
  });
});

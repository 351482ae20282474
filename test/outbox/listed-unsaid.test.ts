import { describe, expect, it } from 'vitest';
import { enqueue, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox, runFor } from './support/proxied-sandbox.js';

/**
 * A lookup that lists a record which may be the order but gives no pharmacy order id and no clinic order id (what a
 * service writing its keys in another case, `{"PharmacyOrderId": …}`, reads as: every field empty). The order may be
 * at the service, so it is never sent again; it is asked about at a growing backoff and, after twice `maxAttempts`
 * such lookups, held for a person. Before, each lookup was recorded as answered, so the backoff never grew past its
 * base: the order was looked up about once a second for good, with no one told. Real SQLite, real HTTP.
 */

const TUNING = {
  concurrency: 1,
  ratePerSecond: 500,
  baseDelayMs: 20,
  maxDelayMs: 2_000,
  maxAttempts: 3,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: 0,
};

const fixture = proxiedSandbox(TUNING);

describe('a lookup listing a record without ids', () => {
  it('is asked again at a growing backoff, never resent, and held for a person after 2 × maxAttempts', async () => {
    // The most each wait's jitter allows, so the waits are the backoff's ceilings.
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url, () => 0.999);
    const [id] = enqueue(t, sampleOrders('UNSAID', 1));
    let creates = 0;
    const lookupsAt: number[] = [];
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        return 'forward-then-drop';
      }
      if (req.url.includes('status-with-clinic-code')) {
        lookupsAt.push(performance.now());
        return { status: 200, body: [{ orderStatus: 'Waiting Payment Success' }] };
      }
      return 'forward';
    });

    const result = await runFor(outbox, 8_000);

    expect(result.outcome).toBe('idle');
    expect(creates).toBe(1);
    expect(lookupsAt).toHaveLength(2 * TUNING.maxAttempts);
    // Growing: 20, 40, 80, 160, 320 ms ceilings (less the jitter's sliver), where each was under 20 ms before.
    const gaps = lookupsAt.slice(1).map((at, i) => at - lookupsAt[i]!);
    expect(gaps.at(-1)!).toBeGreaterThan(250);
    const order = t.store.orders.get(id!)!;
    expect(order.state).toBe('held');
    expect(order.lastError?.message).toMatch(/in 6 lookups: it may have it, so it is not sent again/);
    // One attention event for the hold.
    expect(attention.filter((event) => event.kind === 'order')).toHaveLength(1);
  });
});

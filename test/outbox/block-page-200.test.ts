import { describe, expect, it } from 'vitest';
import { enqueue, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox, runFor } from './support/proxied-sandbox.js';

/**
 * A firewall in front of the service that blocks one order's body with a 200 and its web page (F5's default block
 * page comes with a 200), while lookups get through. Each create is in doubt, looked up, not found and sent again;
 * the service answers and fails only this order, so the sends count, as after a 5xx: the order is held after
 * `maxAttempts`, saying what the page said. Before, a lone order so answered was sent again every grace period for
 * good, its message "the answer is not JSON", no one told. Real SQLite, real HTTP through a loopback proxy.
 */

const MAX_ATTEMPTS = 3;
const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 100,
  maxAttempts: MAX_ATTEMPTS,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: 0,
});

const BLOCK_PAGE =
  '<html><head><title>Request Rejected</title></head><body>The requested URL was rejected. ' +
  'Please consult with your administrator.<br><br>Your support ID is: 1234567890</body></html>';

describe('a 200 block page to one order, lookups getting through', () => {
  it('holds the lone order after maxAttempts sends, naming the page; it was sent again for good', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('BLOCKED-200', 1));
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (!req.url.includes('create-with-clinic')) return 'forward';
      creates += 1;
      return { status: 200, text: BLOCK_PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } };
    });

    const result = await runFor(outbox, 5_000);

    expect(result.outcome).toBe('idle');
    expect(creates).toBe(MAX_ATTEMPTS);
    const order = t.store.orders.get(id!)!;
    expect(order.state).toBe('held');
    expect(order.lastError?.message).toContain(`gave up after ${MAX_ATTEMPTS} attempts`);
    expect(order.lastError?.message).toContain('a web page instead of its answer: "Request Rejected"');
    expect(attention.filter((event) => event.kind === 'order')).toHaveLength(1);
    expect(fixture.sandbox.listOrders().filter((o) => o.clinicOrderId === 'BLOCKED-200-1')).toEqual([]);
  });
});

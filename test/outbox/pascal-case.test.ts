import { describe, expect, it } from 'vitest';
import { enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox, runFor } from './support/proxied-sandbox.js';

/**
 * A service that writes its answers' keys in PascalCase (`{"OrderId": 5001}`, as .NET's Newtonsoft and a naming
 * policy of null do), read as the contract's keys. Before, every create was in doubt and every lookup's records read
 * with every field empty, so no order was ever settled (looked up about once a second for good). Real SQLite, real
 * HTTP: the sandbox's answers rewritten on the way back by a loopback proxy.
 */

const fixture = proxiedSandbox({
  concurrency: 2,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 200,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: 0,
});

const upper = (key: string) => key.charAt(0).toUpperCase() + key.slice(1);
function pascal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pascal);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [upper(key), pascal(inner)]));
}
const inPascalCase = { rewrite: (body: string) => JSON.stringify(pascal(JSON.parse(body))) };

describe('answers with their keys in PascalCase', () => {
  it('a create answered {"OrderId": n} is created with that id, never looked up', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('PASCAL-CREATE', 3);
    enqueue(t, orders);
    const lookups: string[] = [];
    fixture.setProxyRule((req) => {
      if (req.url.includes('status-with-clinic-code')) lookups.push(req.url);
      return inPascalCase;
    });

    const result = await runFor(outbox);

    expect(result.outcome).toBe('idle');
    expect(lookups).toEqual([]);
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });

  it('an order whose answer was lost is found by a lookup listing it in PascalCase, and created once', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('PASCAL-LOST', 2);
    enqueue(t, orders);
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        return 'forward-then-drop';
      }
      return inPascalCase;
    });

    const result = await runFor(outbox);

    expect(result.outcome).toBe('idle');
    expect(creates).toBe(2);
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });
});

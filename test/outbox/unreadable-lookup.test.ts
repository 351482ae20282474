import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * Lookups of an order in doubt that the service (or a gateway in front of its reads) answers with a 2xx that cannot
 * be read: a single sign-on gateway's sign-in page with a 200, a listing cut off on its way. The
 * service answers, so this is no outage, and the order cannot be settled by asking: before, it was looked up for good,
 * in doubt, never sent and no one told. Now such lookups count as refused ones do: after `maxAttempts` of them it is
 * held for a person, never sent again (the service may have it). Real SQLite, real HTTP through a loopback proxy.
 */

const MAX_ATTEMPTS = 4;
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

const SIGN_IN_PAGE =
  '<!DOCTYPE html><html><head><title>Sign in to your account</title></head>' +
  '<body><form method="post" action="/login">Email <input name="loginfmt"></form></body></html>';

describe('lookups answered with a 2xx that cannot be read, after an unanswered create', () => {
  for (const [what, answer] of [
    [
      "a gateway's sign-in page with a 200",
      { status: 200, text: SIGN_IN_PAGE, headers: { 'content-type': 'text/html' } },
    ],
    [
      'JSON cut off on the way',
      { status: 200, text: '[{"clinicOrderId":"UNREAD', headers: { 'content-type': 'application/json' } },
    ],
  ] as const) {
    it(`${what}: never sent again, held for a person after ${MAX_ATTEMPTS} such lookups, told once`, async () => {
      const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
      const [id] = enqueue(t, sampleOrders(`UNREAD-LOOKUP-${what.length}`, 1));
      let creates = 0;
      fixture.setProxyRule((req) => {
        if (req.url.includes('create-with-clinic')) {
          creates += 1;
          // The create lands at the service, and its answer is lost.
          return 'forward-then-drop';
        }
        return req.url.includes('status-with-clinic-code') ? answer : 'forward';
      });

      let result;
      try {
        result = await outbox
          .runUntilIdle(ENVIRONMENT_ID, { signal: AbortSignal.timeout(4_000) })
          .catch(() => 'still looking it up after 4 s');
      } finally {
        await outbox.stop();
      }

      expect(result).toMatchObject({ outcome: 'idle' });
      expect(creates).toBe(1);
      const held = t.store.orders.get(id!)!;
      expect(held.state).toBe('held');
      expect(held.lastError?.message).toMatch(
        new RegExp(
          `^the service answered ${MAX_ATTEMPTS} lookups of this order since it was sent with answers that could not be read`,
        ),
      );
      expect(t.store.attempts.list(id!).map((a) => a.operation)).toEqual([
        'create',
        ...Array<string>(MAX_ATTEMPTS).fill('lookup'),
      ]);
      expect(attention.filter((a) => a.kind === 'order')).toHaveLength(1);
    });
  }
});

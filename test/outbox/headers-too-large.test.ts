import { describe, expect, it } from 'vitest';
import { enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox, runFor } from './support/proxied-sandbox.js';

/**
 * A proxy in front of the service refusing the request's headers as too large (a 431, or nginx's "400 Request Header
 * Or Cookie Too Large" page), as when the sign-in's token outgrows its buffer: nothing reached the service, and it is
 * about what every request carries, not about the order. The orders wait as in an outage and go once the headers get
 * through; before, each order of the batch was rejected one by one. Real SQLite, real HTTP through a loopback proxy.
 */

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 100,
  maxAttempts: 8,
  breakerThreshold: 3,
  breakerCooldownMs: 50,
  reconcileDelayMs: 10,
  listingGraceMs: 0,
});

const NGINX_400 =
  '<html>\r\n<head><title>400 Request Header Or Cookie Too Large</title></head>\r\n<body>\r\n<center><h1>400 Bad ' +
  'Request</h1></center>\r\n<center>Request Header Or Cookie Too Large</center>\r\n<hr><center>nginx</center>\r\n' +
  '</body>\r\n</html>\r\n';

describe("a proxy refusing the request's headers as too large", () => {
  it.each([
    ['431', { status: 431, text: '', headers: {} }],
    ["nginx's 400 page", { status: 400, text: NGINX_400, headers: { 'content-type': 'text/html' } }],
  ])('(%s) rejects no order: they wait, and are created once it lets them through', async (_, refusal) => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders(`HEADERS-${refusal.status}`, 3);
    enqueue(t, orders);
    let refused = 0;
    fixture.setProxyRule((req) => {
      if (!req.url.includes('create-with-clinic') || refused >= 5) return 'forward';
      refused += 1;
      return refusal;
    });

    const result = await runFor(outbox, 8_000);

    expect(refused).toBe(5);
    expect(result.counts).toMatchObject({ created: 3, rejected: 0, held: 0 });
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });
});

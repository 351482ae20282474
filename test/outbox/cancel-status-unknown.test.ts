import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, requestCancel, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A cancel refused (400) while the status check that should tell why is refused too. The refusal alone is no
 * evidence the order is still in force: here the service did cancel it and then answered 400. Before, the admin
 * read only the cancel's refusal, as if the pharmacy would dispatch; now the message says the state is not known.
 */

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 100,
  maxAttempts: 3,
  breakerThreshold: 8,
  breakerCooldownMs: 50,
  reconcileDelayMs: 10,
});

describe('a cancel refused whose status check is refused too', () => {
  it('ends refused once, saying both answers and that whether the order is cancelled is not known', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('CANCEL-UNKNOWN', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    requestCancel(t.store, id!, 'no longer needed');
    let cancels = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('Order/cancel')) {
        cancels += 1;
        return { forwardThen: { status: 400, body: { error: 'Cancel could not be processed', status: 400 } } };
      }
      if (req.url.includes('Order/status')) return { status: 400, body: { error: 'Bad request', status: 400 } };
      return 'forward';
    });
    outbox.notify(ENVIRONMENT_ID);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    expect(cancels).toBe(1);
    const { pharmacyOrderId, state, lastError } = t.store.orders.get(id!)!;
    expect(fixture.sandbox.listOrders().find((o) => o.pharmacyOrderId === pharmacyOrderId)?.status).toBe('Cancelled');
    const said =
      "whether the order is cancelled is not known (check with the pharmacy): the service refused the cancel (Cancel could not be processed) and refused to give the order's status too (Bad request)";
    expect(state).toBe('cancel_refused');
    expect(lastError?.message).toBe(said);
    expect(t.store.cancellations.list(id!)).toEqual([
      expect.objectContaining({ state: 'refused', resultMessage: said }),
    ]);
    expect(attention).toEqual([expect.objectContaining({ reason: 'cancel-refused', orderId: id, message: said })]);
  });
});

import { describe, expect, it } from 'vitest';
import { sampleHl7 } from '../support/sample-orders.js';
import { enqueue, expectEachCreatedOnce, hl7Order } from './support/outbox-fixture.js';
import { proxiedSandbox, runFor } from './support/proxied-sandbox.js';

/**
 * An HL7 create answered with an HL7 acknowledgement (`MSH|…` `MSA|AR|…`), as an HL7 endpoint may answer instead of
 * the chosen `{ "orderId" }`. A reject or error (AR, AE, CR, CE) is the service refusing the message, with its
 * reason: before, it read as "not JSON", and the order was in doubt, looked up and sent again for good, its reason
 * never shown. An accept names no order id: the order is looked up, saying so. Real SQLite, real HTTP.
 */

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 200,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: 0,
});

const ack = (code: string, text: string) =>
  `MSH|^~\\&|CLOUDRX|PHARMACY|RXBATCH||20261207120000||ACK^O11^ACK|A1|P|2.5\rMSA|${code}|MSG-1|${text}\r`;

describe('an HL7 create answered with an HL7 acknowledgement', () => {
  it('AR is a refusal with its reason: rejected, sent once, never looked up', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const hl7 = sampleHl7({ clinicCode: 'CLINIC-H', clinicOrderId: 'ACK-AR-1' });
    const [id] = enqueue(t, [hl7Order(hl7.message, 'CLINIC-H', 'ACK-AR-1')]);
    const received: string[] = [];
    fixture.setProxyRule((req) => {
      received.push(req.url.split('?')[0]!.split('/').pop()!);
      return req.url.includes('create-with-hl7message')
        ? {
            status: 200,
            text: ack('AR', 'Unknown prescriber'),
            headers: { 'content-type': 'x-application/hl7-v2+er7' },
          }
        : 'forward';
    });

    const result = await runFor(outbox);

    expect(result.outcome).toBe('idle');
    expect(received).toEqual(['create-with-hl7message']);
    expect(t.store.orders.get(id!)).toMatchObject({
      state: 'rejected',
      lastError: { kind: 'rejected', message: 'the service refused the HL7 message (AR): Unknown prescriber' },
    });
  });

  it('AE with a 400 is rejected with its reason, not the raw acknowledgement', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const hl7 = sampleHl7({ clinicCode: 'CLINIC-H', clinicOrderId: 'ACK-AE-1' });
    const [id] = enqueue(t, [hl7Order(hl7.message, 'CLINIC-H', 'ACK-AE-1')]);
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-hl7message')
        ? { status: 400, text: ack('AE', 'RXE-2 dm+d code not recognised') }
        : 'forward',
    );

    await runFor(outbox);

    expect(t.store.orders.get(id!)).toMatchObject({
      state: 'rejected',
      lastError: { message: 'the service refused the HL7 message (AE): RXE-2 dm+d code not recognised' },
    });
  });

  it('AA names no order id: looked up, saying so, and created once', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const hl7 = sampleHl7({ clinicCode: 'CLINIC-H', clinicOrderId: 'ACK-AA-1' });
    const [id] = enqueue(t, [hl7Order(hl7.message, 'CLINIC-H', 'ACK-AA-1')]);
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (!req.url.includes('create-with-hl7message')) return 'forward';
      creates += 1;
      // The first is acknowledged without reaching the sandbox: its lookup misses, and it is sent again.
      return creates === 1 ? { status: 200, text: ack('AA', '') } : 'forward';
    });

    const result = await runFor(outbox);

    expect(result.outcome).toBe('idle');
    expect(creates).toBe(2);
    expectEachCreatedOnce(fixture.sandbox, t.store, ['ACK-AA-1']);
    expect(t.store.attempts.list(id!)[0]).toMatchObject({
      operation: 'create',
      outcome: 'in-doubt',
      errorMessage: 'the service acknowledged the HL7 message (AA) without an order id: the outcome is unknown',
    });
  });
});

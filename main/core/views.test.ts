import { describe, expect, it } from 'vitest';
import { notFoundReason } from '../../shared/not-found-at-service.js';
import { orderAttention } from './outbox/attention.js';
import { toAttentionView } from './views.js';

describe('what the contract shows of the core', () => {
  it('masks the clinic order id in notifications, also where the service quoted it', () => {
    const view = toAttentionView(
      {
        kind: 'order',
        environmentId: 'prod',
        reason: 'rejected',
        orderId: 7,
        clinicCode: 'CLINIC-A',
        clinicOrderId: 'RX-2025-000123',
        message: 'duplicate clinicOrderId RX-2025-000123',
        field: 'prescription.clinicOrderId',
      },
      new Date('2025-03-03T09:00:00Z'),
    );
    expect(view).toEqual({
      environmentId: 'prod',
      kind: 'order-rejected',
      message: 'Order ***********123 (CLINIC-A): duplicate clinicOrderId ***********123',
      orderIds: [7],
      at: '2025-03-03T09:00:00.000Z',
      // For the screen, which shows clinic order ids in full and opens the order from its name.
      order: {
        id: 7,
        clinicCode: 'CLINIC-A',
        clinicOrderId: 'RX-2025-000123',
        detail: 'duplicate clinicOrderId RX-2025-000123',
      },
    });
  });

  it('names an order the service no longer finds as the other order notifications do, its id masked', () => {
    const reason = notFoundReason({
      clinicOrderId: 'RX-2025-000123',
      pharmacyOrderId: 100_234,
      lookups: 3,
      since: '2025-03-03T09:00:00.000Z',
    });
    const view = toAttentionView(
      orderAttention(
        { environmentId: 'prod', id: 7, clinicCode: 'CLINIC-A', clinicOrderId: 'RX-2025-000123' },
        'not-found',
        reason,
      ),
      new Date('2025-03-03T10:05:00Z'),
    );
    expect(view).toMatchObject({ kind: 'order-not-found', orderIds: [7], order: { id: 7, detail: reason } });
    expect(view.message).toBe(
      'Order ***********123 (CLINIC-A): the service has not found order ***********123 (pharmacy id 100234) on 3 lookups since 2025-03-03 09:00 UTC; it may have been removed at the service, or this environment points at another service',
    );
  });

  it.each(['service-unavailable', 'sign-in-required'] as const)(
    'says a %s condition in a sentence for a person, never the socket error behind it',
    (kind) => {
      const view = toAttentionView(
        {
          kind,
          environmentId: 'prod',
          message: 'request to https://api.example/orders failed: socket hang up (ECONNRESET)',
        },
        new Date('2025-03-03T09:00:00Z'),
      );
      expect(view.kind).toBe(kind);
      expect(view.message).not.toMatch(/ECONNRESET|socket|https?:/);
      expect(view.message).toMatch(/^[A-Z].*\.$/);
    },
  );

  it('says a refusal of every request (403) as such, not as a service that does not answer', () => {
    const view = toAttentionView(
      {
        kind: 'service-unavailable',
        environmentId: 'prod',
        message: 'refuses every request with 403',
        accessRefused: true,
      },
      new Date('2025-03-03T09:00:00Z'),
    );
    expect(view.message).toMatch(/refuses this computer/);
    expect(view.message).not.toMatch(/not answering/);
  });
});

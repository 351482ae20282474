import { describe, expect, it } from 'vitest';
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
});

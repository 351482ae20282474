import { describe, expect, it } from 'vitest';
import type { OrderDetail } from '../../../../shared/outbox-views.js';
import { buildTimeline } from './build-timeline.js';

const t = (second: number) => new Date(Date.UTC(2025, 2, 3, 9, 0, second)).toISOString();

function detail(overrides: Partial<OrderDetail> = {}): OrderDetail {
  return {
    order: {
      id: 7,
      batchId: 2,
      environmentId: 'local-sandbox',
      clinicCode: 'CLINIC-A',
      clinicOrderId: 'ORD-1',
      route: 'v1',
      state: 'cancel_refused',
      pharmacyOrderId: 5001,
      remoteStatus: 'Prescription Dispatched',
      remoteStatusAt: t(40),
      dispatchDate: '2025-03-03',
      trackingId: 'RM123456789GB',
      lastError: null,
      attempts: 2,
      nextAttemptAt: null,
      createdAt: t(0),
      updatedAt: t(50),
    },
    items: [],
    attempts: [
      {
        id: 1,
        operation: 'create',
        startedAt: t(2),
        latencyMs: 30_000,
        httpStatus: null,
        outcome: 'in-doubt',
        errorMessage: 'timed out',
        remoteId: null,
      },
      {
        id: 2,
        operation: 'lookup',
        startedAt: t(5),
        latencyMs: 12,
        httpStatus: 200,
        outcome: 'ok',
        errorMessage: null,
        remoteId: '5001',
      },
      {
        id: 3,
        operation: 'cancel',
        startedAt: t(45),
        latencyMs: 9,
        httpStatus: 400,
        outcome: 'rejected',
        errorMessage: 'already dispatched',
        remoteId: null,
      },
    ],
    statusHistory: [
      { id: 1, status: 'Waiting Payment Success', dispatchDate: null, trackingId: null, observedAt: t(10) },
      {
        id: 2,
        status: 'Prescription Dispatched',
        dispatchDate: '2025-03-03',
        trackingId: 'RM123456789GB',
        observedAt: t(40),
      },
    ],
    cancellations: [
      {
        id: 1,
        reason: 'Prescriber withdrew it',
        state: 'refused',
        requestedAt: t(44),
        sentAt: t(45),
        resultMessage: 'already dispatched',
      },
    ],
    audit: [
      {
        seq: 10,
        at: t(1),
        actor: 'user',
        action: 'order.accepted',
        environmentId: 'local-sandbox',
        batchId: 2,
        orderId: 7,
        clinicCode: 'CLINIC-A',
        clinicOrderId: 'ORD-1',
        details: {},
        prevHash: 'a',
        hash: 'b',
      },
      {
        seq: 11,
        at: t(2),
        actor: 'submitter',
        action: 'order.attempt',
        environmentId: 'local-sandbox',
        batchId: 2,
        orderId: 7,
        clinicCode: 'CLINIC-A',
        clinicOrderId: 'ORD-1',
        details: {},
        prevHash: 'b',
        hash: 'c',
      },
    ],
    ...overrides,
  };
}

describe('an order’s timeline', () => {
  it('tells the whole story in order: staged, accepted, in doubt, found, statuses, cancel refused', () => {
    const events = buildTimeline(detail());
    expect(events.map((event) => event.title)).toEqual([
      'Staged in batch 2',
      'Accepted into the outbox',
      'Sent, but no answer came back (in doubt)',
      'Looked up: the service has it, pharmacy order id 5001',
      'Status: Waiting Payment Success',
      'Status: Prescription Dispatched',
      'Cancel requested',
      'Cancel refused',
    ]);
    const dispatched = events.find((event) => event.title === 'Status: Prescription Dispatched');
    expect(dispatched?.details).toEqual(['Dispatch date 2025-03-03', 'Tracking id RM123456789GB']);
    const cancel = events.find((event) => event.title === 'Cancel requested');
    expect(cancel?.details).toEqual(['Reason: Prescriber withdrew it', 'Outcome: Refused: already dispatched']);
    expect(events.find((event) => event.title === 'Cancel refused')?.details).toEqual([
      'already dispatched',
      'HTTP 400, 9 ms',
    ]);
  });

  it('shows a rejection found when accepting (no attempt was made) from the log', () => {
    const events = buildTimeline(
      detail({
        attempts: [],
        statusHistory: [],
        cancellations: [],
        audit: [
          {
            seq: 3,
            at: t(1),
            actor: 'user',
            action: 'order.rejected',
            environmentId: 'local-sandbox',
            batchId: 2,
            orderId: 7,
            clinicCode: 'CLINIC-A',
            clinicOrderId: 'ORD-1',
            details: { errorMessage: 'ORD-1 of clinic CLINIC-A is already in the outbox' },
            prevHash: 'a',
            hash: 'b',
          },
        ],
      }),
    );
    expect(events.map((event) => [event.title, event.details])).toEqual([
      ['Accepted into the outbox from batch 2', ['Route v1']],
      ['Rejected', ['ORD-1 of clinic CLINIC-A is already in the outbox']],
    ]);
  });
});

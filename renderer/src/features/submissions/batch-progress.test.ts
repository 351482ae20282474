import { describe, expect, it } from 'vitest';
import { ORDER_STATE_NAMES, type OrderStateName } from '../../../../shared/order-views.js';
import { describeBatch, describeBatches } from './batch-progress.js';

function counts(some: Partial<Record<OrderStateName, number>>) {
  return Object.fromEntries(ORDER_STATE_NAMES.map((state) => [state, some[state] ?? 0])) as Record<
    OrderStateName,
    number
  >;
}

describe('progress per batch', () => {
  it("says this batch's N of M, its rate and the time left at that rate", () => {
    const line = describeBatch({
      batchId: 12,
      fileName: 'tuesday.csv',
      counts: counts({ queued: 150, sending: 5, created: 40, rejected: 5 }),
      ordersPerSecond: 3.1,
    });
    expect(line.name).toBe('tuesday.csv (batch 12)');
    // 155 to go at 3.1 a second: 50 s.
    expect(line.text).toBe('45 of 200 settled (22%) · 155 to go · 3.1 orders/s · about 0:50 left');
    expect(line.timeLeftWords).toBe('about 50 seconds left');
  });

  it('is done when nothing is left, and says so when the rate is not known yet', () => {
    expect(describeBatch({ batchId: 1, fileName: null, counts: counts({ created: 3 }), ordersPerSecond: 0 }).text).toBe(
      '3 of 3 settled (100%) · done',
    );
    expect(
      describeBatch({ batchId: 2, fileName: null, counts: counts({ queued: 3 }), ordersPerSecond: 0 }).text,
    ).toContain('time left not known yet');
  });

  it('counts the older batches still going out into a newer batch’s time left, newest shown first', () => {
    const lines = describeBatches([
      { batchId: 5, fileName: 'new.csv', counts: counts({ queued: 10 }), ordersPerSecond: 2 },
      { batchId: 4, fileName: 'old.csv', counts: counts({ queued: 10, created: 10 }), ordersPerSecond: 2 },
    ]);
    expect(lines.map((line) => line.batchId)).toEqual([5, 4]);
    expect(lines[1]!.text).toContain('about 0:05 left');
    expect(lines[0]!.text).toContain('about 0:10 left');
  });

  it('says why nothing goes instead of a time left while sending waits', () => {
    const [line] = describeBatches(
      [{ batchId: 3, fileName: null, counts: counts({ in_doubt: 3 }), ordersPerSecond: 0 }],
      'waiting for the service',
    );
    expect(line!.text).toBe('0 of 3 settled (0%) · 3 to go · 0 orders/s · waiting for the service');
  });
});

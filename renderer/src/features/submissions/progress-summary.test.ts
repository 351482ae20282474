import { describe, expect, it } from 'vitest';
import { ORDER_STATE_NAMES, type OrderStateName } from '../../../../shared/outbox-views.js';
import { formatRate, summarizeProgress } from './progress-summary.js';

function counts(some: Partial<Record<OrderStateName, number>>) {
  return Object.fromEntries(ORDER_STATE_NAMES.map((state) => [state, some[state] ?? 0])) as Record<
    OrderStateName,
    number
  >;
}

describe('submission progress', () => {
  it('counts accepted orders only, and what is still to go', () => {
    const summary = summarizeProgress(
      counts({ ready: 50, withdrawn: 2, queued: 30, sending: 2, in_doubt: 1, created: 60, rejected: 5, held: 2 }),
    );
    expect(summary).toEqual({
      total: 100,
      waiting: 33,
      settled: 67,
      succeeded: 60,
      needsAttention: 7,
      fraction: 0.67,
    });
  });

  it('is complete when nothing was accepted yet, rather than dividing by zero', () => {
    expect(summarizeProgress(counts({ ready: 10 })).fraction).toBe(1);
  });

  it('counts orders cancelled after creation as having gone through', () => {
    expect(summarizeProgress(counts({ created: 2, cancelled: 1, cancel_refused: 1 }))).toMatchObject({
      total: 4,
      settled: 4,
      succeeded: 4,
      needsAttention: 1,
    });
  });

  it('shows the rate readably', () => {
    expect(formatRate(0)).toBe('0 orders/s');
    expect(formatRate(4.26)).toBe('4.3 orders/s');
    expect(formatRate(37.6)).toBe('38 orders/s');
  });
});

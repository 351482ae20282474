import { describe, expect, it } from 'vitest';
import { ORDER_STATE_NAMES, type OrderStateName } from '../../../../shared/order-views.js';
import { formatRate, needPerson, slowServiceSentence, summarizeProgress } from './progress-summary.js';

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

  it('says how many settled orders still wait for a person', () => {
    expect(needPerson(summarizeProgress(counts({ created: 88, held: 1, rejected: 0 })).needsAttention)).toBe(
      '1 needs a person (below)',
    );
    expect(needPerson(1234)).toBe('1,234 need a person (below)');
    // Created orders whose lookups need a person (not found at the service) are among those listed below.
    expect(summarizeProgress(counts({ created: 88, held: 1 }), 2).needsAttention).toBe(3);
  });

  it('shows the rate readably', () => {
    expect(formatRate(0)).toBe('0 orders/s');
    expect(formatRate(4.26)).toBe('4.3 orders/s');
    expect(formatRate(37.6)).toBe('38 orders/s');
  });

  it('says when requests are waiting on a slow service, and whether sending goes on beside them', () => {
    expect(slowServiceSentence(null)).toBeNull();
    expect(slowServiceSentence(undefined)).toBeNull();
    expect(slowServiceSentence({ requests: 1, longestMs: 6_400, slots: 4 })).toBe(
      '1 request is waiting on a slow service (longest 6 s). Sending goes on in the other 3 slots meanwhile. ' +
        'Nothing is sent twice: an order without an answer is looked up before it is sent again.',
    );
    expect(slowServiceSentence({ requests: 2, longestMs: 12_300, slots: 3 })).toMatch(
      /^2 requests are waiting on a slow service \(longest 12 s\)\. Sending goes on in the other slot meanwhile\./,
    );
    expect(slowServiceSentence({ requests: 2, longestMs: 29_600, slots: 2 })).toMatch(
      /^2 requests are waiting on a slow service \(longest 30 s\)\. All 2 sending slots are taken, so nothing else goes until the service answers or the request times out\./,
    );
    expect(slowServiceSentence({ requests: 1, longestMs: 5_000, slots: 1 })).toMatch(/The only sending slot is taken/);
  });
});

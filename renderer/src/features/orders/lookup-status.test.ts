import { describe, expect, it } from 'vitest';
import { lookupStatusText } from './lookup-status.js';

const window = { startDate: '2026-11-01', endDate: '2026-11-04' };
const record = {} as never;
const signedOut = { kind: 'auth', status: 401, message: 'Unauthorized' } as const;

describe('the service lookup’s result sentence', () => {
  it('never says "No order found" when the service did not answer', () => {
    const text = lookupStatusText({ records: [], windows: [], truncated: false, error: signedOut });
    expect(text).not.toMatch(/No order found/);
    expect(text).toContain('not known');
    expect(
      lookupStatusText({ records: [record, record], windows: [window, window], truncated: false, error: signedOut }),
    ).toBe('2 orders found before the service stopped answering (above); the rest of the range was not looked up.');
  });

  it('says how many, in how many requests, as one sentence', () => {
    expect(lookupStatusText({ records: [], windows: [], truncated: false, error: null })).toBe('No order found.');
    expect(lookupStatusText({ records: [], windows: [window, window, window], truncated: false, error: null })).toBe(
      'No order found in 3 requests.',
    );
    expect(lookupStatusText({ records: [record], windows: [window], truncated: false, error: null })).toBe(
      '1 order found.',
    );
    expect(
      lookupStatusText({ records: [record, record], windows: [window, window], truncated: true, error: null }),
    ).toBe(
      '2 orders found in 2 requests. The service listed more: only the first 2 are shown; narrow the range to see the rest.',
    );
  });
});

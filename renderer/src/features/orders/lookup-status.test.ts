import { describe, expect, it } from 'vitest';
import { lookupStatusText, type LookedFor } from './lookup-status.js';

const window = { startDate: '2026-11-01', endDate: '2026-11-04' };
const record = {} as never;
const signedOut = { kind: 'auth', status: 401, message: 'Unauthorized' } as const;
const byPharmacyId: LookedFor = { query: { by: 'pharmacyOrderId', pharmacyOrderId: 1234 }, environmentName: 'Sandbox' };
const byDates: LookedFor = {
  query: { by: 'dispatchDate', startDate: '2026-11-01', endDate: '2026-11-09' },
  environmentName: 'Sandbox',
};
const none = { records: [], windows: [], truncated: false, error: null };

describe('the service lookup’s result sentence', () => {
  it('never says "No order" when the service did not answer', () => {
    const text = lookupStatusText({ records: [], windows: [], truncated: false, error: signedOut }, byPharmacyId);
    expect(text).not.toMatch(/No order/);
    expect(text).toContain('not known');
    expect(
      lookupStatusText(
        { records: [record, record], windows: [window, window], truncated: false, error: signedOut },
        byDates,
      ),
    ).toBe('2 orders found before the service stopped answering (above); the rest of the range was not looked up.');
  });

  it('says what was looked for, and in which environment, when nothing was found', () => {
    expect(lookupStatusText(none, byPharmacyId)).toBe('No order with pharmacy order id 1234 in environment "Sandbox".');
    const clinic = (clinicCode?: string): LookedFor => ({
      query: { by: 'clinicOrderId', clinicOrderId: 'ORD-7', ...(clinicCode ? { clinicCode } : {}) },
      environmentName: 'Live',
    });
    expect(lookupStatusText(none, clinic('CL1'))).toBe(
      'No order with clinic order id ORD-7 and clinic code CL1 in environment "Live".',
    );
    expect(lookupStatusText(none, clinic())).toBe(
      'No order with clinic order id ORD-7 (any clinic) in environment "Live".',
    );
    expect(lookupStatusText({ ...none, windows: [window, window, window] }, byDates, (iso) => `<${iso}>`)).toBe(
      'No order dispatched from <2026-11-01> to <2026-11-09> in environment "Sandbox" (asked in 3 requests).',
    );
  });

  it('says how many, in how many requests, as one sentence', () => {
    expect(lookupStatusText({ records: [record], windows: [window], truncated: false, error: null }, byDates)).toBe(
      '1 order found.',
    );
    expect(
      lookupStatusText({ records: [record, record], windows: [window, window], truncated: true, error: null }, byDates),
    ).toBe(
      '2 orders found in 2 requests. The service listed more: only the first 2 are shown; narrow the range to see the rest.',
    );
  });
});

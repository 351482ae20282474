import { describe, expect, it } from 'vitest';
import { canonicalStatus, statusRecordListSchema, statusRecordSchema } from './status.js';

describe('an order status as the service wrote it', () => {
  it('is the known text whatever its case, spacing or spelling of cancelled', () => {
    for (const text of ['cancelled', ' CANCELLED ', 'Canceled', 'CANCELED'])
      expect(canonicalStatus(text)).toBe('Cancelled');
    expect(canonicalStatus('prescription  dispatched')).toBe('Prescription Dispatched');
    expect(statusRecordSchema.parse({ orderStatus: 'Canceled' }).orderStatus).toBe('Cancelled');
  });

  it('is kept as it came when it is no known status', () => {
    expect(canonicalStatus('On hold (clinical query)')).toBe('On hold (clinical query)');
  });
});

describe("a lookup's answer", () => {
  it('is the list it means when the service sends one record alone, or the list wrapped', () => {
    const record = { clinicOrderId: 'A-1', pharmacyOrderId: 7, orderStatus: 'Waiting Clinical Check' };
    const read = (raw: unknown) => statusRecordListSchema.parse(raw).map((r) => r.pharmacyOrderId);
    expect(read([record])).toEqual(['7']);
    expect(read(record)).toEqual(['7']);
    expect(read({ data: [record, { ...record, pharmacyOrderId: 8 }] })).toEqual(['7', '8']);
    expect(read({ data: [] })).toEqual([]);
    // Anything else is still no list.
    expect(statusRecordListSchema.safeParse({ data: [], items: [] }).success).toBe(false);
    expect(statusRecordListSchema.safeParse({ message: 'Not found' }).success).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { canonicalStatus, statusRecordSchema } from './status.js';

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

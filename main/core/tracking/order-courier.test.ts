import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { courierCodeOf } from './order-courier.js';

const body = (courierCode: unknown) => JSON.stringify({ prescription: { clinicOrderId: 'A-1', courierCode } });

describe('the courier of a stored order', () => {
  it('reads v1’s text and v2’s integer through the environment’s code list', () => {
    expect(courierCodeOf('v1', body('RMT48'), undefined)).toBe('RMT48');
    expect(courierCodeOf('v2', body(3), DEFAULT_CODE_LISTS)).toBe('DPD');
  });

  it('says it does not know rather than guess', () => {
    expect(courierCodeOf('hl7', 'MSH|^~\\&|A', DEFAULT_CODE_LISTS)).toBeNull();
    expect(courierCodeOf('v2', body(3), undefined)).toBeNull();
    expect(courierCodeOf('v2', body(99), DEFAULT_CODE_LISTS)).toBeNull();
    expect(courierCodeOf('v2', body(1), { v2CourierCode: { RMT24: 1, ROYAL: 1 } })).toBeNull();
    expect(courierCodeOf('v1', body(''), undefined)).toBeNull();
    expect(courierCodeOf('v1', 'not json', undefined)).toBeNull();
  });
});

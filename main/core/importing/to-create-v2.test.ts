import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { createV2Schema, createWithClinicV1Schema } from '../../../shared/orders.js';
import { toWireJson } from '../../../shared/wire-json.js';
import { toCreateV2 } from './index.js';
import { exampleOrder, templateExampleOrders } from './testing/write-fixtures.js';

describe('the v2 create route', () => {
  it('maps title, payment type and courier to the environment’s integers and moves repeats onto the items', () => {
    const v1 = createWithClinicV1Schema.parse(templateExampleOrders()[1]);
    const result = toCreateV2(v1, DEFAULT_CODE_LISTS);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.body.customer).toMatchObject({ title: 1, dateOfBirth: '1975-06-30T00:00:00Z', gender: 'Male' });
    expect(result.body.prescription).toEqual({
      clinicOrderId: 'ORD-1002',
      clinicOrderValue: 24.5,
      paymentType: 1,
      courierCode: 2,
      currencyCode: 'GBP',
    });
    expect(result.body.prescribedItems).toEqual([{ ...v1.prescribedItems[0], allowedRepeats: 2 }]);
    expect(result.body.clinicInformation).toEqual({ clinicCode: 'CLINIC-A' });
    expect(result.body.homeAddress).toEqual(v1.homeAddress);
    expect(createV2Schema.safeParse(result.body).success).toBe(true);
  });

  it('keeps an 18-digit dm+d code exact on the wire', () => {
    const v1 = createWithClinicV1Schema.parse(templateExampleOrders()[0]);
    const result = toCreateV2(v1, DEFAULT_CODE_LISTS);
    if (!result.ok) throw new Error('expected a v2 body');
    expect(toWireJson(result.body)).toContain('"dmdCode":123456781000001105');
  });

  it('refuses values the environment has no v2 number for, naming the field', () => {
    const v1 = createWithClinicV1Schema.parse(exampleOrder('X', (o) => (o.customer.title = 'Mx')));
    const result = toCreateV2(v1, { ...DEFAULT_CODE_LISTS, v2Title: { Mr: 1 } });
    expect(result).toMatchObject({
      ok: false,
      problems: [{ code: 'v2.unmapped', field: 'customer.title', severity: 'error' }],
    });
  });
});

import { describe, expect, it } from 'vitest';
import { unmappedRequired } from './unmapped-required.js';

const labels = (columns: Record<string, string>, constants: Record<string, string> = {}) =>
  unmappedRequired(columns, constants).map((field) => field.column);

describe('unmappedRequired', () => {
  it('lists required fields with neither a file column nor a constant', () => {
    const missing = labels({ surname: 'Patient Surname' }, { clinicCode: 'CLINIC-A', clinicOrderId: '' });
    expect(missing).toContain('clinicOrderId');
    expect(missing).toContain('homePostCode');
    expect(missing).not.toContain('surname');
    expect(missing).not.toContain('clinicCode');
    expect(missing).not.toContain('telephone'); // optional
  });

  it('leaves the delivery address out while no delivery field is given: it is the home address then', () => {
    expect(labels({ homeAddress1: 'Address 1' }).filter((c) => c.startsWith('delivery'))).toEqual([]);
  });

  it('wants every required delivery field once one of them is given', () => {
    expect(labels({ deliveryAddress1: 'Ship to' }).filter((c) => c.startsWith('delivery'))).toEqual([
      'deliveryCity',
      'deliveryPostCode',
      'deliveryCountryCode',
    ]);
    expect(labels({}, { deliveryCountryCode: 'GBR' }).filter((c) => c.startsWith('delivery'))).toEqual([
      'deliveryAddress1',
      'deliveryCity',
      'deliveryPostCode',
    ]);
  });
});

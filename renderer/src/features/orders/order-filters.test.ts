import { describe, expect, it } from 'vitest';
import { NO_FILTERS, toListInput } from './order-filters.js';

describe('order filters', () => {
  it('asks for everything in the environment when nothing is filled in', () => {
    expect(toListInput('env', NO_FILTERS, { limit: 100 })).toEqual({ environmentId: 'env', limit: 100 });
  });

  it('never sends a blank surname (a blank is no filter, not a search for "")', () => {
    expect(toListInput('env', { ...NO_FILTERS, patientSurname: '   ' }, { limit: 100 })).toEqual({
      environmentId: 'env',
      limit: 100,
    });
  });

  it('sends the filters given, trimmed, with the page position', () => {
    expect(
      toListInput(
        'env',
        {
          clinicCode: ' CLINIC-A ',
          clinicOrderId: '',
          patientSurname: '  Brontë ',
          state: 'created',
          remoteStatus: 'Prescription Dispatched',
          createdFrom: '2025-03-01',
          createdTo: '',
        },
        { afterId: 200, limit: 100 },
      ),
    ).toEqual({
      environmentId: 'env',
      clinicCode: 'CLINIC-A',
      patientSurname: 'Brontë',
      states: ['created'],
      remoteStatus: 'Prescription Dispatched',
      createdFrom: '2025-03-01',
      afterId: 200,
      limit: 100,
    });
  });
});

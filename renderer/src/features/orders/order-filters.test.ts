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

  it('sends the accepted dates as the bounds of the admin’s own days, in summer time too', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Europe/London';
    try {
      // 3 April 2026 is in British Summer Time (UTC+1): the day runs from 23:00 UTC on the 2nd.
      expect(
        toListInput('env', { ...NO_FILTERS, createdFrom: '2026-04-03', createdTo: '2026-04-03' }, { limit: 100 }),
      ).toEqual({
        environmentId: 'env',
        limit: 100,
        createdAtFrom: '2026-04-02T23:00:00.000Z',
        createdAtBefore: '2026-04-03T23:00:00.000Z',
      });
      // In winter the day is UTC's.
      expect(toListInput('env', { ...NO_FILTERS, createdTo: '2026-01-31' }, { limit: 100 })).toMatchObject({
        createdAtBefore: '2026-02-01T00:00:00.000Z',
      });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
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
      createdAtFrom: new Date(2025, 2, 1).toISOString(),
      afterId: 200,
      limit: 100,
    });
  });
});

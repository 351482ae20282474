import { describe, expect, it } from 'vitest';
import { decodeProvenance, encodeProvenance } from './provenance-codec.js';
import type { StagedProvenance } from './staged-orders-repo.js';

describe('the staged provenance codec', () => {
  it('stores CSV, HL7, constant and edited provenance compactly and reads it back exactly', () => {
    const hl7 = 'MSH|^~\\&|X\rPID|1||||Example^Alex\rRXE||42109611000001109^Paracetamol^DMD|||||||||32||3';
    const source = { file: 'march "final".csv', hl7 };
    const provenance: Record<string, StagedProvenance> = {
      'customer.surname': { kind: 'csv', file: source.file, row: 2, column: 'surname' },
      'customer.dateOfBirth': { kind: 'csv', file: source.file, row: 2, column: 'DOB "dd/mm"' },
      'prescribedItems.1.dmdCode': { kind: 'csv', file: source.file, row: 3, column: 'dmdCode' },
      'prescribedItems.0.quantity': {
        kind: 'hl7',
        file: source.file,
        message: 4,
        path: 'RXE-10.1',
        segment: hl7.split('\r')[2]!,
      },
      'customer.firstName': {
        kind: 'hl7',
        file: source.file,
        message: 4,
        path: 'PID-5.2',
        segment: 'PID|not in the message',
      },
      'prescription.courierCode': { kind: 'constant', profile: 'clinic "x"', column: 'courierCode' },
      'homeAddress.postCode': {
        kind: 'edited',
        at: '2025-03-03T09:00:00.000Z',
        was: { kind: 'csv', file: source.file, row: 2, column: 'homePostCode' },
      },
      // A value from another file (not expected, but kept whole rather than mislabelled).
      'customer.title': { kind: 'csv', file: 'other.csv', row: 9, column: 'title' },
    };
    const text = encodeProvenance(provenance, source);
    expect(JSON.parse(text)).toMatchObject({ v: 1, c: { '2': { 'customer.surname': 0 } } });
    expect(text.length).toBeLessThan(JSON.stringify(provenance).length);
    expect(decodeProvenance(text, source)).toEqual(provenance);
  });

  it('reads an order without provenance', () => {
    expect(decodeProvenance(encodeProvenance({}, { file: 'a.csv' }), { file: 'a.csv' })).toEqual({});
  });
});

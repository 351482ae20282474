import { describe, expect, it } from 'vitest';
import { FIELDS, TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import { ProvenanceTable } from '../model/provenance-table.js';
import { V2_COLUMNS, decodeProvenance, encodeProvenance, encodeProvenanceEntries } from './provenance-codec.js';
import type { StagedProvenance } from './staged-orders-repo.js';

const hl7 = 'MSH|^~\\&|X\rPID|1||||Example^Alex\rRXE||42109611000001109^Paracetamol^DMD|||||||||32||3';

describe('the staged provenance codec', () => {
  it('stores CSV, HL7, constant and edited provenance compactly and reads it back exactly', () => {
    const source = { file: 'march "final".csv', hl7, message: 4 };
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
      'customer.gender': { kind: 'hl7', file: source.file, message: 3, path: 'PID-8', segment: 'PID|1' },
      'prescription.courierCode': { kind: 'constant', profile: 'clinic "x"', column: 'courierCode' },
      'prescription.paymentType': { kind: 'constant', profile: 'p', column: 'Payment' },
      'homeAddress.postCode': {
        kind: 'edited',
        at: '2025-03-03T09:00:00.000Z',
        was: { kind: 'csv', file: source.file, row: 2, column: 'homePostCode' },
      },
      // A value from another file (not expected, but kept whole rather than mislabelled).
      'customer.title': { kind: 'csv', file: 'other.csv', row: 9, column: 'title' },
      // Not a catalogue path: kept whole.
      'prescribedItems.0.note': { kind: 'csv', file: source.file, row: 2, column: 'note' },
    };
    const text = encodeProvenance(provenance, source);
    expect(JSON.parse(text)).toMatchObject({
      v: 2,
      c: { '2': '4', '3': '41.1' },
      n: { '2': { '5': 'DOB "dd/mm"' } },
      h: { '45.0': 'RXE-10.1@2' },
      k: { '23': ['clinic "x"', 0], '22': ['p', 'Payment'] },
    });
    expect(text.length).toBeLessThan(JSON.stringify(provenance).length);
    expect(decodeProvenance(text, source)).toEqual(provenance);
  });

  it('writes a whole CSV order as runs of field numbers per row', () => {
    const source = { file: 'orders.csv' };
    const provenance: Record<string, StagedProvenance> = {};
    const item = (path: string, i: number) => path.replace('*', String(i));
    for (const field of FIELDS) {
      if (field.level === 'order') provenance[field.path] = { kind: 'csv', ...source, row: 4, column: field.column };
    }
    for (const i of [0, 1]) {
      for (const field of FIELDS) {
        if (field.level === 'item') {
          provenance[item(field.path, i)] = { kind: 'csv', ...source, row: 4 + i, column: field.column };
        }
      }
    }
    const text = encodeProvenance(provenance, source);
    expect(JSON.parse(text)).toEqual({ v: 2, c: { '4': '0-40,41-46.0', '5': '41-46.1' } });
    expect(decodeProvenance(text, source)).toEqual(provenance);
  });

  it('still reads version 1, as stored before', () => {
    const source = { file: 'a.csv', hl7, message: 2 };
    const v1 = JSON.stringify({
      v: 1,
      c: { '2': { 'customer.surname': 0, 'prescribedItems.1.dmdCode': 'DMD' } },
      h: { 'prescribedItems.0.quantity': [2, 'RXE-10.1', 2], 'customer.firstName': [2, 'PID-5.2', 'PID|x'] },
      k: { 'prescription.courierCode': ['p', 'courierCode'] },
      e: { 'homeAddress.postCode': { kind: 'edited', at: '2025-03-03T09:00:00.000Z' } },
    });
    expect(decodeProvenance(v1, source)).toEqual({
      'customer.surname': { kind: 'csv', file: 'a.csv', row: 2, column: 'surname' },
      'prescribedItems.1.dmdCode': { kind: 'csv', file: 'a.csv', row: 2, column: 'DMD' },
      'prescribedItems.0.quantity': {
        kind: 'hl7',
        file: 'a.csv',
        message: 2,
        path: 'RXE-10.1',
        segment: hl7.split('\r')[2],
      },
      'customer.firstName': { kind: 'hl7', file: 'a.csv', message: 2, path: 'PID-5.2', segment: 'PID|x' },
      'prescription.courierCode': { kind: 'constant', profile: 'p', column: 'courierCode' },
      'homeAddress.postCode': { kind: 'edited', at: '2025-03-03T09:00:00.000Z' },
    });
  });

  it('numbers every catalogue field, in an order that never changes', () => {
    // The stored form refers to fields by their place in V2_COLUMNS: a new field must be appended there.
    for (const column of TEMPLATE_COLUMNS) expect(V2_COLUMNS).toContain(column);
    expect(new Set(V2_COLUMNS).size).toBe(V2_COLUMNS.length);
    expect(V2_COLUMNS.slice(0, 3)).toEqual(['clinicCode', 'clinicOrderId', 'title']);
    expect(V2_COLUMNS.indexOf('dmdCode')).toBe(41);
  });

  it("writes the importer's table, row numbers and all, exactly as the record it stands for", () => {
    const columns = FIELDS.map((field) => (field.column === 'dateOfBirth' ? 'DOB' : field.column));
    const table = new ProvenanceTable('orders.csv', columns);
    const at = (column: string) => FIELDS.findIndex((field) => field.column === column);
    table.add(at('surname'), -1, at('surname'), 4);
    table.add(at('dateOfBirth'), -1, at('dateOfBirth'), 4);
    // A delivery line that defaulted to the home address: read from the home column.
    table.add(at('deliveryAddress1'), -1, at('homeAddress1'), 4);
    table.add(at('dmdCode'), 0, at('dmdCode'), 4);
    table.add(at('dmdCode'), 1, at('dmdCode'), 5);
    table.add(at('courierCode'), -1, at('courierCode'), { kind: 'constant', profile: 'p', column: 'courierCode' });
    const source = { file: 'orders.csv' };
    const text = encodeProvenanceEntries(table, 'orders.csv', source);
    expect(text).toBe(encodeProvenance(table.record(), source));
    expect(decodeProvenance(text, source)).toEqual({
      'customer.surname': { kind: 'csv', file: 'orders.csv', row: 4, column: 'surname' },
      'customer.dateOfBirth': { kind: 'csv', file: 'orders.csv', row: 4, column: 'DOB' },
      'deliveryAddress.address1': { kind: 'csv', file: 'orders.csv', row: 4, column: 'homeAddress1' },
      'prescribedItems.0.dmdCode': { kind: 'csv', file: 'orders.csv', row: 4, column: 'dmdCode' },
      'prescribedItems.1.dmdCode': { kind: 'csv', file: 'orders.csv', row: 5, column: 'dmdCode' },
      'prescription.courierCode': { kind: 'constant', profile: 'p', column: 'courierCode' },
    });
    expect(table.get('customer.dateOfBirth')).toEqual({ kind: 'csv', file: 'orders.csv', row: 4, column: 'DOB' });
  });

  it('reads an order without provenance', () => {
    expect(decodeProvenance(encodeProvenance({}, { file: 'a.csv' }), { file: 'a.csv' })).toEqual({});
  });
});

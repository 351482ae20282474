import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldIndex } from '../model/field-catalogue.js';
import { parseHl7Message } from '../model/hl7-adapter.js';
import { DEFAULT_HL7_MAP, extractHl7Order, joinDosage } from './hl7-field-map.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * HL7 lets any field repeat. Whatever repetitions a message carries, no value is dropped without a problem: a field
 * that collects them (dosage instructions) joins them all in their order; a field that holds one value takes it
 * when its repetitions agree (or all but one are empty) and is an error naming the values when they differ.
 */

const BASE = writeRde011(exampleOrder('R-1'), { timestamp: '20250101120000' }).split('\r');

/** The message with field `field` of the first `name` segment replaced by `raw` (HL7 text, separators and all). */
function withField(name: string, field: number, raw: string): string[] {
  return BASE.map((segment) => {
    if (!segment.startsWith(`${name}|`)) return segment;
    const fields = segment.split('|');
    while (fields.length <= field) fields.push('');
    fields[field] = raw;
    return fields.join('|');
  });
}

const extract = (segments: string[]) => extractHl7Order(parseHl7Message(segments), { file: 'f.hl7', messageIndex: 1 });

// Text without HL7 separators or escapes (those are written escaped, not repeated).
const plain = fc
  .string({ unit: fc.constantFrom(...'abcdefghij XYZ0123.,;:!?-()/'), minLength: 1, maxLength: 20 })
  .map((s) => s.trim())
  .filter((s) => s !== '' && s !== '""');

describe('repeated HL7 fields', () => {
  it('joins every repetition of RXE-7 and RXO-7 in its order, each by its text, else its code', () => {
    const repetition = fc.oneof(
      plain.map((text) => ({ raw: `^${text}`, read: text })),
      fc.tuple(plain, plain).map(([code, text]) => ({ raw: `${code}^${text}`, read: text })),
      plain.map((code) => ({ raw: code, read: code })),
      fc.constant({ raw: '', read: '' }),
    );
    fc.assert(
      fc.property(fc.array(repetition, { minLength: 1, maxLength: 6 }), fc.boolean(), (reps, omp) => {
        const raw = reps.map((rep) => rep.raw).join('~');
        let segments = withField('RXE', 7, raw);
        if (omp) {
          // The same instructions in RXO-7 of an OMP^O09.
          segments = segments.map((segment) =>
            segment.startsWith('RXE|')
              ? `RXO|${segment.split('|')[2]}||||||${raw}||||32`
              : segment.replace('RDE^O11^RDE_O11', 'OMP^O09^OMP_O09'),
          );
        }
        const extraction = extract(segments);
        const read = reps.map((rep) => rep.read).filter((text) => text !== '');
        const dosage = extraction.cells.items[0]!.values[fieldIndex('dosageInstructions')!];
        expect(dosage).toBe(read.length > 0 ? joinDosage(read) : undefined);
        // Every repetition's text is in what was read: nothing dropped.
        for (const text of read) expect(dosage).toContain(text);
        expect(extraction.problems.filter((p) => p.code.startsWith('hl7.repeat'))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('reads a one-value field from repetitions that agree, and names the values when they differ', () => {
    const targets = [
      { segment: 'PID', field: 7, path: 'customer.dateOfBirth', values: ['19800115', '19810202', '19790101'] },
      { segment: 'PID', field: 8, path: 'customer.gender', values: ['F', 'M', 'U'] },
      { segment: 'ORC', field: 2, path: 'prescription.clinicOrderId', values: ['R-1', 'R-2', 'R-3'] },
      { segment: 'RXE', field: 10, path: 'prescribedItems.0.quantity', values: ['32', '64', '16'] },
      { segment: 'RXE', field: 12, path: 'prescription.repeatsAllowed', values: ['0', '1', '2'] },
      { segment: 'ORC', field: 21, path: 'clinicInformation.name', values: ['Clinic A', 'Clinic B', 'Clinic C'] },
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...targets),
        fc.array(fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 })), { minLength: 2, maxLength: 5 }),
        (target, picks) => {
          const reps = picks.map((pick) => (pick < 0 ? '' : target.values[pick]!));
          const extraction = extract(withField(target.segment, target.field, reps.join('~')));
          const given = reps.filter((value) => value !== '');
          const distinct = [...new Set(given)];
          const index = fieldIndex(target.path)!;
          const set = target.path.startsWith('prescribedItems') ? extraction.cells.items[0]! : extraction.cells.order;
          const repeated = extraction.problems.filter((p) => p.code === 'hl7.repeated');
          expect(set.values[index]).toBe(given[0]);
          if (distinct.length <= 1) {
            expect(repeated).toEqual([]);
          } else {
            expect(repeated).toHaveLength(1);
            expect(repeated[0]).toMatchObject({ severity: 'error', field: target.path, message: 1 });
            // Every value the repetitions hold is named: nothing dropped without a problem.
            for (const value of distinct) expect(repeated[0]!.text).toContain(`'${value}'`);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads a profile override as one value, the repetition it names, or all of them joined', () => {
    const message = parseHl7Message([...BASE, 'ZDL|RMT24~DPD|one a day~after food']);
    const read = (overrides: Record<string, string>) =>
      extractHl7Order(message, { file: 'f.hl7', messageIndex: 1, overrides });
    const courier = fieldIndex('courierCode')!;
    const one = read({ courierCode: 'ZDL-1' });
    expect(one.cells.order.values[courier]).toBe('RMT24');
    expect(one.problems).toMatchObject([{ code: 'hl7.repeated', field: 'prescription.courierCode' }]);
    const second = read({ courierCode: 'ZDL-1[2]' });
    expect(second.cells.order.values[courier]).toBe('DPD');
    expect(second.problems).toEqual([]);
    const all = read({ dosageInstructions: 'ZDL-2[*]' });
    expect(all.cells.items[0]!.values[fieldIndex('dosageInstructions')!]).toBe('one a day; after food');
    expect(all.problems).toEqual([]);
  });

  it('says for every field of the map what it does with repetitions', () => {
    for (const entry of DEFAULT_HL7_MAP) expect(entry.repetitions.length, entry.column).toBeGreaterThan(10);
  });
});

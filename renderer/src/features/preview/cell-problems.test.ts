import { describe, expect, it } from 'vitest';
import type { ProblemView } from '../../../../shared/staging-views.js';
import { countPhrase, placeProblems, worstSeverity } from './cell-problems.js';
import { describeProvenance, provenanceSegment } from './provenance-text.js';

const problem = (field: string | undefined, severity: 'error' | 'warning' = 'error'): ProblemView => ({
  severity,
  file: 'f.csv',
  code: 'x',
  text: `${field ?? 'order'} is wrong`,
  ...(field !== undefined ? { field } : {}),
});

describe('where a problem shows in the grid', () => {
  it('puts field problems on their exact cell (items by index) and the rest on the order', () => {
    const placed = placeProblems([
      problem('homeAddress.postCode'),
      problem('prescribedItems.1.dmdCode'),
      problem('prescribedItems.1.dmdCode', 'warning'),
      problem('prescription.currencyCode'), // no grid column: the order's cell and the details panel carry it
      problem(undefined, 'warning'),
    ]);
    expect([...placed.byPath.keys()]).toEqual(['homeAddress.postCode', 'prescribedItems.1.dmdCode']);
    expect(placed.byPath.get('prescribedItems.1.dmdCode')).toHaveLength(2);
    expect(placed.order.map((p) => p.text)).toEqual(['prescription.currencyCode is wrong', 'order is wrong']);
    expect([placed.errors, placed.warnings]).toEqual([3, 2]);
    expect(worstSeverity(placed.byPath.get('prescribedItems.1.dmdCode'))).toBe('error');
    expect(worstSeverity([problem('x', 'warning')])).toBe('warning');
    expect(worstSeverity(undefined)).toBeUndefined();
    expect(countPhrase(1, 2)).toBe('1 error, 2 warnings');
  });

  it('says where a value came from: CSV line and column, HL7 field with its segment, an edit and what it replaced', () => {
    expect(describeProvenance({ kind: 'csv', file: 'a.csv', row: 3, column: 'DMD' })).toBe('a.csv, line 3, column DMD');
    const hl7 = { kind: 'hl7', file: 'b.hl7', message: 2, path: 'RXE-10', segment: 'RXE||1^X^DMD|||||||32' } as const;
    expect(describeProvenance(hl7)).toBe('b.hl7, message 2, field RXE-10');
    const edited = { kind: 'edited', at: 'not a date', was: hl7 } as const;
    expect(describeProvenance(edited)).toBe('Edited here at not a date; was b.hl7, message 2, field RXE-10');
    expect(provenanceSegment(edited)).toBe('RXE||1^X^DMD|||||||32');
    expect(provenanceSegment({ kind: 'csv', file: 'a.csv', row: 3, column: 'DMD' })).toBeUndefined();
  });
});

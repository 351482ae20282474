import { describe, expect, it } from 'vitest';
import { problemColumnsText } from './problem-columns-text.js';

describe('what the problems filter says it shows', () => {
  it('sends the admin to the details when the problems are all in fields with no column', () => {
    expect(
      problemColumnsText(new Set(['prescription.clinicOrderValue', 'clinicInformation.prescriberFee']), 0, false),
    ).toBe(
      'These problems are in fields the grid has no column for: fix them in each order’s details below the grid. ',
    );
  });

  it('counts the columns shown, and says where the rest are fixed', () => {
    expect(problemColumnsText(new Set(['homeAddress.postCode', 'deliveryAddress.postCode']), 2, false)).toBe(
      'Showing the 2 columns with problems beside order, clinic order id and surname. ',
    );
    expect(problemColumnsText(new Set(['homeAddress.postCode', 'prescription.clinicOrderValue']), 1, false)).toBe(
      'Showing the 1 column with problems beside order, clinic order id and surname; the other problems have no column: fix them in each order’s details below the grid. ',
    );
  });

  it('with every column shown, still says where problems without a column are fixed', () => {
    expect(problemColumnsText(new Set(['homeAddress.postCode']), 30, true)).toBe('Showing every column. ');
    expect(problemColumnsText(new Set(['prescription.clinicOrderValue']), 30, true)).toBe(
      'Showing every column; some problems have none: fix them in each order’s details below the grid. ',
    );
  });
});

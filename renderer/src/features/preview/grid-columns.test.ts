import { describe, expect, it } from 'vitest';
import { ALL_COLUMNS, columnWidths, FROZEN_COLUMNS, problemSummary, visibleColumns } from './grid-columns.js';
import { stagedOrderAt } from './testing/staged-order-view.js';

/** A monospace-like measure: 8 px a character. */
const measure = (text: string) => text.length * 8;

const withBody = (body: unknown) => ({ ...stagedOrderAt(1), body });

describe('preview grid columns', () => {
  it('freezes order, clinic order id and surname first, then the problems summary, then the other fields', () => {
    expect(ALL_COLUMNS.slice(0, FROZEN_COLUMNS + 1).map((column) => column.label)).toEqual([
      'Order',
      'Clinic order id',
      'Surname',
      'Problems',
    ]);
    expect(ALL_COLUMNS.map((column) => column.label)).toContain('dm+d code');
    expect(new Set(ALL_COLUMNS.map((column) => column.key)).size).toBe(ALL_COLUMNS.length);
  });

  it('with the problems filter shows only the fields with problems beside the frozen columns and the summary', () => {
    const shown = visibleColumns(new Set(['homeAddress.postCode', 'prescribedItems.*.dmdCode']));
    expect(shown.map((column) => column.label)).toEqual([
      'Order',
      'Clinic order id',
      'Surname',
      'Problems',
      'Home postcode',
      'dm+d code',
    ]);
  });

  it('sizes columns to their content within bounds, and never cuts a dm+d code', () => {
    const orders = [
      withBody({
        prescription: { clinicOrderId: 'A-VERY-LONG-CLINIC-ORDER-IDENTIFIER-1234567890-1234567890' },
        customer: { surname: 'Li' },
        prescribedItems: [{ dmdCode: '42109611000001109' }, { dmdCode: '101001011000001104' }],
      }),
    ];
    const widths = columnWidths(ALL_COLUMNS, orders, measure, problemSummary);
    const at = (label: string) => widths[ALL_COLUMNS.findIndex((column) => column.label === label)]!;
    expect(at('Clinic order id')).toBe(320); // capped: the rest is in the details
    expect(at('Surname')).toBe('Surname'.length * 8 + 16); // the header is the widest
    expect(at('dm+d code')).toBeGreaterThanOrEqual(18 * 8 + 16 + 16);
    // However narrow the sample, an 18-digit code fits.
    const empty = columnWidths(ALL_COLUMNS, [], measure, problemSummary);
    expect(empty[ALL_COLUMNS.findIndex((column) => column.label === 'dm+d code')]).toBeGreaterThanOrEqual(18 * 8 + 32);
  });

  it('names the fields at fault, errors first, items by number, the order itself in words', () => {
    const problem = (field: string | undefined, severity: 'error' | 'warning') => ({
      severity,
      file: 'f.csv',
      code: 'x',
      text: 't',
      ...(field ? { field } : {}),
    });
    expect(
      problemSummary({
        problems: [
          problem('homeAddress.postCode', 'error'),
          problem('prescribedItems.1.dmdCode', 'error'),
          problem('homeAddress.postCode', 'error'),
          problem('customer.telephone', 'warning'),
          problem(undefined, 'error'),
        ],
      }),
    ).toBe('✕ Home postcode, dm+d code (item 2), the order · ⚠ Telephone');
    expect(problemSummary({ problems: [] })).toBe('');
  });
});

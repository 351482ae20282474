import { describe, expect, it } from 'vitest';
import { PRODUCTS } from '../../../sandbox/catalogue.js';
import { FIELDS, TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import { exampleTemplateCsv } from '../staging/batch-exports.js';
import { templateGuideText } from './template-guide.js';

describe('the downloadable template', () => {
  it('has an example dm+d code that the sandbox knows, named as the example medication', () => {
    const [header, row] = exampleTemplateCsv().trimEnd().split('\r\n') as [string, string];
    const cells = row.split(',');
    const at = (column: string) => cells[header.split(',').indexOf(column)];
    const product = PRODUCTS.find((candidate) => candidate.dmdCode === at('dmdCode'));
    expect(product?.name).toBe(at('medication'));
  });

  it('comes with a guide that explains every column, in the template’s order, and says which are required', () => {
    const guide = templateGuideText('rx-batch-template.csv');
    const described = guide
      .split('\r\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim().split(/\s+/)[0]);
    expect(described).toEqual([...TEMPLATE_COLUMNS]);
    expect(guide).toMatch(
      /^ {2}clinicOrderId +clinic order id \(required\); text, kept exactly as written\. Example: ORD-1001$/m,
    );
    expect(guide).toMatch(/^ {2}dateOfBirth +date of birth \(required\); a date, written YYYY-MM-DD/m);
    // A field checked against the environment's code lists says so, and what they hold out of the box.
    expect(guide).toMatch(
      /^ {2}courierCode +courier code \(required\); one of the environment's courier codes, written exactly as listed \(Settings, the environment's Edit; out of the box: RMT24, RMT48, DPD\)\. Example: RMT24$/m,
    );
    expect(guide).toMatch(
      /^ {2}gender +gender \(required\); one of the environment's genders, .*Male, Female, Other, Unknown\)/m,
    );
    expect(guide).toMatch(/^ {2}paymentType +payment type \(required\); one of the environment's payment types/m);
    expect(guide).toMatch(/^ {2}title +title \(required\); one of the environment's titles/m);
    expect(guide).toContain('One row per prescribed item.');
    expect(FIELDS.some((field) => !field.required && guide.includes(`${field.label} (optional)`))).toBe(true);
  });
});

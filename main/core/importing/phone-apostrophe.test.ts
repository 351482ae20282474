import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { writeTemplateCsv } from './template-csv.js';
import { exampleOrder } from './testing/write-fixtures.js';
import { ukPhoneReason } from './uk-rules.js';

/**
 * Exports made for Excel write `'07700900123` so a spreadsheet keeps the 0 (the apostrophe marks text there and is
 * not shown). In the CSV it is in the cell, and the number was refused as "not a phone number", with no word of the
 * apostrophe. It is said, with the number to write; not mended, as no phone check mends.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-phone-apostrophe-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a phone number after an apostrophe', () => {
  it('names the apostrophe and the number to write', () => {
    expect(ukPhoneReason("'07700900123")).toBe(
      "starts with an apostrophe ('), which a spreadsheet uses to keep digits as text and which is no part of the number: write 07700900123",
    );
    expect(ukPhoneReason("'+44 7700 900123")).toContain('write +44 7700 900123');
  });

  it('is said at the row and column of the CSV', async () => {
    const path = join(dir, 'phones.csv');
    const csv = writeTemplateCsv([exampleOrder('A-1')]).replace(',07700900123,', ",'07700900123,");
    await writeFile(path, csv);
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
    expect(report.orders[0]!.problems).toMatchObject([
      { code: 'telephone.format', file: 'phones.csv', row: 2, field: 'customer.telephone', severity: 'error' },
    ]);
    expect(report.orders[0]!.problems[0]!.text).toContain('starts with an apostrophe');
  });

  it('an apostrophe before something that is no UK number is still refused as before', () => {
    expect(ukPhoneReason("'call reception")).toBe('is not a phone number');
    expect(ukPhoneReason("'12")).toBe('is not a phone number');
  });
});

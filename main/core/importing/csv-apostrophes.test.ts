import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { writeTemplateCsv } from './template-csv.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * Exports made for Excel write `'07700900123`, `'42109611000001109` so a spreadsheet keeps the leading zeros and
 * long codes (the apostrophe marks text there, and is not shown). In the CSV it is in the cell: a code or quantity
 * was refused with no word of the apostrophe. A file warning now names the first such cell and how many there are;
 * the values are read as before.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-apostrophes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TODAY = new Date('2025-06-01T00:00:00Z');

async function importWith(values: Record<string, string>) {
  const csv = writeTemplateCsv([exampleOrder('A-1'), exampleOrder('A-2')]);
  const [header, ...rows] = csv.trimEnd().split('\r\n');
  const columns = header!.split(',');
  const edited = rows.map((row, r) =>
    row
      .split(',')
      .map((cell, i) => (r === 1 && values[columns[i]!] !== undefined ? values[columns[i]!]! : cell))
      .join(','),
  );
  const path = join(dir, 'apostrophes.csv');
  await writeFile(path, [header, ...edited].join('\r\n') + '\r\n');
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
}

describe('cells starting with an apostrophe before digits', () => {
  it('are said once, naming the first cell and the count; the values are read as before', async () => {
    const report = await importWith({ telephone: "'07700900123", dmdCode: "'42109611000001109" });
    const found = report.fileProblems.filter((p) => p.code === 'csv.leadingApostrophe');
    expect(found).toMatchObject([{ severity: 'warning', file: 'apostrophes.csv', row: 3 }]);
    expect(found[0]!.text).toContain('column "telephone"');
    expect(found[0]!.text).toContain("''07700900123'");
    expect(found[0]!.text).toContain('2 such cells');
    expect(report.orders[1]!.body).toMatchObject({ customer: { telephone: "'07700900123" } });
  });

  it("free text (a name, an address line 'a flat number), or our own template's guarded formula cells, are not such cells", async () => {
    const report = await importWith({ surname: "'t Hooft", homeAddress2: "'7 Flat", telephone: "'+44 7700 900123" });
    expect(report.fileProblems.map((p) => p.code)).not.toContain('csv.leadingApostrophe');
  });
});

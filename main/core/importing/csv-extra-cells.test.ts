import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';

/**
 * A row with more filled cells than the header: a cell holding the delimiter that is not quoted moved every cell
 * after it one column on, so the row's values cannot be matched to its columns. With the dosage as the last column,
 * `Two tablets, four times a day` unquoted was sent as `Two tablets` with a file warning only.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
const HEADER =
  'Clinic Code,Order Number,Title,First Name,Last Name,DOB,Sex,Address,City,Postcode,Country,GMC,Prescriber,Clinic,Clinic Address,Clinic Postcode,Clinic Country,Payment Type,Courier,Currency,DMD,Drug,Qty,Directions';
const ROW =
  'CLINIC-A,ORD-1,Ms,Alex,Example,1980-01-15,F,1 High Street,Leeds,LS1 4AP,GBR,7123456,Dr Jane Smith,Example Clinic,10 Market Street,YO1 7HH,GBR,Account,RMT24,GBP,42109611000001109,Paracetamol 500mg tablets,32';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-extra-cells-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a CSV row with more cells than the header', () => {
  it('holds its order back, quoting the cells beyond the last column, and reads none of its cells', async () => {
    const path = join(dir, 'unquoted.csv');
    await writeFile(
      path,
      [
        HEADER,
        `${ROW},Two tablets, four times a day`,
        `${ROW.replace('ORD-1', 'ORD-2')},"One tablet, at night"`,
        '',
      ].join('\n'),
    );
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    expect(report.fileProblems).toEqual([]);
    const [cut, quoted] = report.orders;
    expect(cut!.valid).toBe(false);
    expect(cut!.problems).toEqual([
      {
        severity: 'error',
        file: 'unquoted.csv',
        row: 2,
        code: 'csv.extraCells',
        text: "Row 2 has more cells than the header (beyond its last column: 'four times a day'), so its cells cannot be matched to the columns (a cell holding the delimiter that is not quoted moves every cell after it one column on) and none was read. Quote that cell, or name the extra columns in the header, and import again.",
      },
    ]);
    expect((cut!.body as { prescribedItems: unknown[] }).prescribedItems).toEqual([]);
    expect(quoted!.valid).toBe(true);
  });

  it('says where the row has typographic quotes, which CSV does not read as quotes', async () => {
    const path = join(dir, 'curly.csv');
    await writeFile(path, [HEADER, `${ROW},“Two tablets, four times a day”`, ''].join('\n'));
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    const [problem] = report.orders[0]!.problems;
    expect(problem).toMatchObject({ code: 'csv.extraCells', row: 2 });
    expect(problem!.text).toContain("beyond its last column: 'four times a day”'");
    expect(problem!.text).toMatch(
      /The row has typographic quotes \(“ ”\), which CSV does not read as quotes: write them as straight quotes \("\)\.$/,
    );
  });

  it('says nothing of empty cells after the last column (a trailing delimiter)', async () => {
    const path = join(dir, 'trailing.csv');
    await writeFile(path, [HEADER, `${ROW},Two tablets four times a day,,`, ''].join('\n'));
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    expect(report.orders[0]!.problems).toEqual([]);
  });
});

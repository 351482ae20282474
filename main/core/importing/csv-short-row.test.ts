import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * A row with fewer cells than the header (cut short, or split by a line break in an unquoted cell) is said for the
 * file, and what its item lacks is said at its own row, not at the order's first.
 */

let dir: string;
let header: string;
let row: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-short-row-'));
  [header, row] = (await readFile(join(FIXTURE_DIR, 'bad-registration.csv'), 'utf8'))
    .replace(',GMC 123,', ',1234567,')
    .split('\n') as [string, string];
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a row with fewer cells than the header', () => {
  it('gets one csv.missingCells warning naming it, and its item errors name its row', async () => {
    const path = join(dir, 'short.csv');
    const cut = row.split(',').slice(0, 20).join(',');
    await writeFile(path, `${header}\n${row}\n${cut}\n`);
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
    const warnings = report.fileProblems.filter((p) => p.code === 'csv.missingCells');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ severity: 'warning', file: 'short.csv', row: 3 });
    expect(warnings[0]!.text).toBe(
      "Row 3 has fewer cells than the header's 47, so the last columns were read as empty (a row cut short, or a line break inside a cell that is not quoted?).",
    );
    const item = report.orders[0]!.problems.filter((p) => p.field?.startsWith('prescribedItems.1.'));
    expect(item.length).toBeGreaterThan(0);
    expect(item.map((p) => p.row)).toEqual(item.map(() => 3));
  });

  it('says nothing of a full row', async () => {
    const path = join(dir, 'full.csv');
    await writeFile(path, `${header}\n${row}\n`);
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
    expect(report.fileProblems).toEqual([]);
  });
});

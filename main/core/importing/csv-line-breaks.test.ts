import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * A quoted cell holding a line break (a spreadsheet's Alt+Enter, or a quote left open) is never read silently: a
 * value over two lines is sent as written (valid CSV, and what the app's own exports write back) with a warning on
 * its field, naming the row and column.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
let dir: string;
let header: string;
let cells: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-line-breaks-'));
  const lines = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).split(/\r?\n/);
  header = lines[0]!;
  cells = lines[1]!.split(',');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The template's first row with cell `at` replaced, then a second order's row after it, CRLF or LF. */
async function write(name: string, at: number, cell: string, eol = '\n'): Promise<string> {
  const row = cells.map((c, i) => (i === at ? cell : c));
  const next = cells.map((c, i) => (i === 1 ? 'ORD-2' : c));
  const path = join(dir, name);
  await writeFile(path, [header, row.join(','), next.join(','), ''].join(eol));
  return path;
}

const DOSAGE = 44;
const SURNAME = 4;

describe('a quoted line break inside a CSV cell', () => {
  for (const eol of ['\n', '\r\n']) {
    it(`keeps a dosage over two lines and says so at its row and column (${JSON.stringify(eol)})`, async () => {
      const path = await write(`dosage-${eol.length}.csv`, DOSAGE, `"Two tablets${eol}up to four times a day"`, eol);
      const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
      const [first, second] = report.orders;
      expect(first!.valid).toBe(true);
      expect(
        (first!.body as { prescribedItems: { dosageInstructions: string }[] }).prescribedItems[0]!.dosageInstructions,
      ).toBe(`Two tablets${eol}up to four times a day`);
      expect(first!.problems).toEqual([
        {
          severity: 'warning',
          file: `dosage-${eol.length}.csv`,
          row: 2,
          field: 'prescribedItems.0.dosageInstructions',
          code: 'csv.lineBreakInCell',
          text: `Row 2, column "dosageInstructions", holds a line break (↵) in item 1 dosage instructions 'Two tablets ↵ up to four times a day': it is sent with the line break, as written; if it should be one line, edit it in the preview or the file.`,
        },
      ]);
      // The next record starts on the physical line after the cell's second line.
      expect(second!.source).toMatchObject({ rows: [4] });
      expect(second!.problems).toEqual([]);
    });
  }

  it('says a surname over two lines is usually one line, naming the row and column', async () => {
    const path = await write('surname.csv', SURNAME, '"Example\nSmith"');
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    const first = report.orders[0]!;
    expect((first.body as { customer: { surname: string } }).customer.surname).toBe('Example\nSmith');
    expect(first.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        row: 2,
        field: 'customer.surname',
        code: 'csv.lineBreakInCell',
        text: `Row 2, column "surname", holds a line break (↵) in surname 'Example ↵ Smith': it is sent with the line break, as written; surname is usually one line, so the cell may hold two values, or a quote left open took in the next line: check it, and write it on one line in the preview or the file if so.`,
      }),
    ]);
    expect(report.orders[1]!.problems).toEqual([]);
  });

  it('still validates a dosage over two lines (too long is still said)', async () => {
    const path = await write('long.csv', DOSAGE, `"${'x'.repeat(1200)}\nmore"`);
    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
    const codes = report.orders[0]!.problems.map((p) => p.code);
    expect(codes).toContain('csv.lineBreakInCell');
    expect(codes).toContain('field.tooLong');
  });
});

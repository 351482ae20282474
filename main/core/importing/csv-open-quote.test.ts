import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { writeTemplateCsv } from './template-csv.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A quote opening a cell and never closed on its row (`"Alex,Example,…`) takes in the rows after it, up to the next
 * quote or the file's end: their orders are not read at all. The error named only the row with the quote, so the
 * orders of the rows it took in went missing without a word. It now names them.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-open-quote-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TODAY = new Date('2025-06-01T00:00:00Z');

async function importRows(edit: (lines: string[]) => string[]) {
  const csv = writeTemplateCsv([exampleOrder('Q-1'), exampleOrder('Q-2'), exampleOrder('Q-3'), exampleOrder('Q-4')]);
  const path = join(dir, 'quotes.csv');
  await writeFile(path, edit(csv.split('\r\n')).join('\r\n'));
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY });
}

describe('a quote left open', () => {
  it('names the rows it took in, to the end of the file', async () => {
    const report = await importRows((lines) =>
      lines.map((line, i) => (i === 2 ? line.replace(',Alex,', ',"Alex,') : line)),
    );
    expect(report.orders.map((o) => o.clinicOrderId)).toEqual(['Q-1', null]);
    const [problem] = report.orders[1]!.problems;
    expect(problem).toMatchObject({ code: 'csv.quotes', file: 'quotes.csv', row: 3, severity: 'error' });
    expect(problem!.text).toContain('Row 3');
    expect(problem!.text).toContain('rows 4 to 5');
  });

  it('a cell quoted over two lines whose quote is then malformed names the row it ran onto', async () => {
    const report = await importRows((lines) =>
      lines.map((line, i) => (i === 1 ? line.replace(',Alex,', ',"Al\nex"x,') : line)),
    );
    const problem = report.orders.flatMap((o) => o.problems).find((p) => p.code === 'csv.quotes');
    expect(problem).toMatchObject({ row: 2 });
    expect(problem!.text).toContain('row 3');
  });

  it('a malformed quote within its own row is said as before', async () => {
    const report = await importRows((lines) =>
      lines.map((line, i) => (i === 2 ? line.replace(',Alex,', ',"Alex"x,') : line)),
    );
    expect(report.orders.map((o) => o.clinicOrderId)).toEqual(['Q-1', null, 'Q-3', 'Q-4']);
    expect(report.orders[1]!.problems.map((p) => p.text)).toEqual([
      'Row 3 has a malformed quoted cell (a quote that is not closed, or text after a closing quote), so its cells cannot be read; fix the row and import again.',
    ]);
  });
});

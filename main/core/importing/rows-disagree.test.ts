import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-disagree-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rows of one order that disagree', () => {
  it('say that a reused clinic order id needs a new one in the file, not a fix in the preview', async () => {
    // The template example's first row, then the same clinic order id for another patient.
    const [header, first] = readFileSync(join(FIXTURE_DIR, 'template-example.csv'), 'utf8').split(/\r?\n/) as [
      string,
      string,
    ];
    const surname = header.split(',').indexOf('surname');
    const other = first
      .split(',')
      .map((cell, index) => (index === surname ? 'Other' : cell))
      .join(',');
    const path = join(dir, 'reused-id.csv');
    await writeFile(path, `${header}\r\n${first}\r\n${other}\r\n`);

    const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
    expect(report.orders).toHaveLength(1);
    const problem = report.orders[0]!.problems.find((p) => p.code === 'order.rowsDisagree');
    expect(problem?.text).toMatch(
      /^Rows 2 and 3 belong to the same order but disagree on surname .*'Other' on row 3\./,
    );
    expect(problem?.text).toContain(
      'if these are different orders, give each its own clinic order id in the file and import it again',
    );
  });
});

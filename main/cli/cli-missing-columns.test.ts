import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * A template whose header lost columns (a clinic system's export without them, a column deleted in a spreadsheet)
 * gave each order "Date of birth is required." and nothing more: the admin looked for empty cells in a column the
 * file does not have. The file's own line now names the missing columns, once, before the orders' problems.
 */

const dir = mkdtempSync(join(tmpdir(), 'rx-cli-missing-columns-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

/** The template's example order without some columns, and without the delivery address (the home one is used). */
async function templateWithout(name: string, dropped: readonly string[]): Promise<string> {
  const template = join(dir, `${name}-template.csv`);
  expect((await cli('template', template)).code).toBe(0);
  const [header, row] = Papa.parse<string[]>(readFileSync(template, 'utf8').slice(1), { skipEmptyLines: true }).data;
  const keep = header!.flatMap((column, i) => (dropped.includes(column) || column.startsWith('delivery') ? [] : [i]));
  const file = join(dir, `${name}.csv`);
  writeFileSync(file, [header!, row!].map((cells) => keep.map((i) => cells[i]).join(',')).join('\r\n'));
  return file;
}

describe('rx-batch import of our template without some columns', () => {
  it('names the required columns the header lacks, once, without any patient value', async () => {
    const file = await templateWithout('lost', ['dateOfBirth', 'courierCode', 'telephone']);
    const run = await cli('import', file, '--env', LOCAL_SANDBOX_ID);
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n');
    expect(lines[0]).toBe(
      `${file}: row 1: The header has no columns "dateOfBirth" (date of birth), "courierCode" (courier code), which ` +
        'every order needs: each order is missing them. Add the columns to the header, as in the template, fill them ' +
        'in, and import the file again.',
    );
    // The orders' own lines follow, as codes (stderr is no terminal); telephone is optional, delivery falls back.
    expect(lines.filter((line) => line.includes('The header has no'))).toHaveLength(1);
    expect(run.stderr).toContain(`${file}: row 2: customer.dateOfBirth: error field.required`);
    expect(run.stderr).not.toMatch(/telephone|delivery/);
  });

  it('says nothing of columns when only optional ones are missing', async () => {
    const file = await templateWithout('optional', ['telephone', 'email', 'pack']);
    const run = await cli('import', file, '--env', LOCAL_SANDBOX_ID, '--json');
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('The header has no');
    expect(JSON.parse(run.stdout)).toMatchObject({ orders: 1, valid: 1 });
  });
});

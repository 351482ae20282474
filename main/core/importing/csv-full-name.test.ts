import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';

/**
 * EPR and pharmacy exports often give the patient's whole name in one column ('Patient Name': 'Example, Alex'). Which
 * part is the surname is not guessed; the file says why the name fields are missing. Written in the shape of such
 * exports, not copied from one.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-full-name-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importCsv(name: string, text: string) {
  const path = join(dir, name);
  await writeFile(path, text);
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
}

const ROW =
  'CLINIC-A,ORD-1,"Example, Alex",1980-01-15,F,1 High Street,Leeds,LS1 4AP,Paracetamol,42109611000001109,Two daily,32';

describe('a whole-name column', () => {
  it.each(['Patient Name', 'Full Name', 'NAME', "Patient's name"])(
    '%s: one file warning naming the column, and the name fields still missing on the order',
    async (heading) => {
      const report = await importCsv(
        'export.csv',
        `Clinic Code,Order No,${heading},DOB,Sex,Address,Town,Postcode,Drug,DMD,Directions,Qty\n${ROW}\n`,
      );
      const warnings = report.fileProblems.filter((p) => p.code === 'csv.fullNameColumn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ severity: 'warning', file: 'export.csv', row: 1 });
      expect(warnings[0]!.text).toContain(`Column '${heading}' looks like the patient's whole name`);
      // The name is never split by guesswork: the order still lacks both parts.
      const required = report.orders[0]!.problems.filter((p) => p.code === 'field.required').map((p) => p.field);
      expect(required).toEqual(expect.arrayContaining(['customer.firstName', 'customer.surname']));
    },
  );

  it('says nothing where the file has a surname column', async () => {
    const report = await importCsv(
      'split.csv',
      `Clinic Code,Order No,Surname,Forename,Patient Name,DOB,Sex,Address,Town,Postcode,Drug,DMD,Directions,Qty\nCLINIC-A,ORD-1,Example,Alex,"Example, Alex",1980-01-15,F,1 High Street,Leeds,LS1 4AP,Paracetamol,42109611000001109,Two daily,32\n`,
    );
    expect(report.fileProblems.map((p) => p.code)).not.toContain('csv.fullNameColumn');
  });
});

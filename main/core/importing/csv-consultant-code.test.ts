import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, type MappingProfile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * A prescriber's number given as an NHS consultant code (C and the GMC number), as NHS EPR exports write it, is read
 * in a CSV as the HL7 map reads it in ORC-12.1: as its GMC number, with a warning naming the row and column.
 */

let dir: string;
let template: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-consultant-'));
  template = await readFile(join(FIXTURE_DIR, 'bad-registration.csv'), 'utf8');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importWith(registration: string, profile?: MappingProfile) {
  const path = join(dir, 'consultant.csv');
  await writeFile(path, template.replace(',GMC 123,', `,${registration},`));
  return importFile(path, {
    codeLists: DEFAULT_CODE_LISTS,
    today: new Date('2025-06-01T00:00:00Z'),
    ...(profile ? { profile } : {}),
  });
}

describe('an NHS consultant code in a CSV registration number column', () => {
  it.each(['C1234567', 'c1234567'])(
    '%s is read as GMC 1234567 with a warning naming the row and column',
    async (code) => {
      const report = await importWith(code);
      const order = report.orders[0]!;
      expect(order.valid).toBe(true);
      expect(
        (order.body as { prescribingDoctor: { registrationNumber: string } }).prescribingDoctor.registrationNumber,
      ).toBe('1234567');
      expect(order.problems).toEqual([
        {
          severity: 'warning',
          file: 'consultant.csv',
          row: 2,
          field: 'prescribingDoctor.registrationNumber',
          code: 'registrationNumber.consultantCode',
          text: `Column "prescriberRegistrationNumber" '${code}' is an NHS consultant code, the letter C and the GMC number, so the GMC number 1234567 was read.`,
        },
      ]);
    },
  );

  it('still refuses a C with other than seven digits, and leaves GMC numbers alone', async () => {
    const short = await importWith('C123456');
    expect(short.orders[0]!.problems.map((p) => p.code)).toEqual(['registrationNumber.format']);
    const plain = await importWith('1234567');
    expect(plain.orders[0]!.problems).toEqual([]);
  });
});

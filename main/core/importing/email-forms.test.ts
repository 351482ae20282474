import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile } from './index.js';
import { FIXTURE_DIR } from './testing/write-fixtures.js';

/**
 * An email address as a web page, a mail program or a spreadsheet's hyperlink writes it (`mailto:…`, `<…>`, a
 * list's trailing `;`) passed the address check and would have been sent with that text. Each is an email.format
 * error saying what surrounds the address and what to write; plain addresses still pass.
 */

let dir: string;
let header: string;
let row: string[];
let at: { email: number; contact: number };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-email-'));
  const lines = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).split(/\r?\n/);
  header = lines[0]!;
  row = lines[1]!.split(',');
  const cells = header.split(',');
  at = { email: cells.indexOf('email'), contact: cells.indexOf('clinicContactEmail') };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importEmails(email: string, contact = 'clinic@example.test') {
  const cells = [...row];
  cells[at.email] = email;
  cells[at.contact] = contact;
  const path = join(dir, 'emails.csv');
  await writeFile(path, `${header}\n${cells.join(',')}\n`);
  const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') });
  return report.orders[0]!;
}

describe('an email address written with what surrounds it', () => {
  it.each([
    ['mailto:alex@example.test', 'is written as a link (mailto:): write the address alone (alex@example.test)'],
    ['<alex@example.test>', 'holds angle brackets (< >), as a mail program writes an address beside a name'],
    ['Alex<alex@example.test>', 'holds angle brackets (< >)'],
    ['alex@example.test;', "ends in ';', as a list of addresses does: write one address alone (alex@example.test)"],
  ])('%s is refused, saying why', async (email, why) => {
    const order = await importEmails(email);
    expect(order.valid).toBe(false);
    const found = order.problems.filter((p) => p.code === 'email.format');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'error', field: 'customer.email', row: 2 });
    expect(found[0]!.text).toContain(why);
  });

  it("the clinic's contact email the same way", async () => {
    const order = await importEmails('alex@example.test', 'MAILTO:clinic@example.test');
    expect(order.problems.map((p) => `${p.code}:${p.field}`)).toEqual(['email.format:clinicInformation.contactEmail']);
  });

  it.each(['alex@example.test', 'a.b+c@sub.example.co.uk', "o'brien@example.test", 'jörg@bücher.de'])(
    '%s still passes',
    async (email) => {
      const order = await importEmails(email);
      expect(order.problems).toEqual([]);
      expect(order.valid).toBe(true);
    },
  );
});

import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import {
  DEFAULT_HL7_MAP,
  TEMPLATE_COLUMNS,
  importFile,
  writeRde011,
  writeTemplateCsv,
  type ImportProgress,
  type ImportedOrder,
  type MappingProfile,
} from './index.js';
import { FIXTURE_DIR, exampleOrder, templateExampleOrders } from './testing/write-fixtures.js';

const TODAY = new Date('2025-06-01T00:00:00Z');
const base = { codeLists: DEFAULT_CODE_LISTS, today: TODAY };
const fixture = (name: string) => join(FIXTURE_DIR, name);
const MB = 1024 * 1024;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-import-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `head`, then `megabytes` of 'x' in 1 MB pieces, then `tail`, without building the whole file in memory. */
async function writeHuge(name: string, head: string, megabytes: number, tail: string): Promise<string> {
  const path = join(dir, name);
  const out = createWriteStream(path);
  const piece = 'x'.repeat(MB);
  out.write(head);
  for (let i = 0; i < megabytes; i += 1) {
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  out.end(tail);
  await new Promise<void>((resolve, reject) => out.on('finish', () => resolve()).on('error', reject));
  return path;
}

/** Imports a file and tells how far it read before giving up. */
async function importTracking(path: string) {
  let furthest = 0;
  const report = await importFile(path, {
    ...base,
    onProgress: (p: ImportProgress) => (furthest = Math.max(furthest, p.bytes)),
  });
  return { report, furthest };
}

describe('importFile', () => {
  it('reports progress up to the whole file and hands orders to onOrder instead of the report', async () => {
    const progress: ImportProgress[] = [];
    const received: ImportedOrder[] = [];
    const report = await importFile(fixture('late-windows-1252.csv'), {
      ...base,
      onProgress: (p) => progress.push(p),
      onOrder: async (order) => {
        await Promise.resolve();
        received.push(order);
      },
    });
    expect(report.orders).toEqual([]);
    expect(report.orderCount).toBe(221);
    expect(received).toHaveLength(221);
    const last = progress.at(-1)!;
    expect(last.bytes).toBe(last.totalBytes);
    expect(last.rows).toBe(221);
    expect(progress.map((p) => p.bytes)).toEqual([...progress.map((p) => p.bytes)].sort((a, b) => a - b));
  });

  it('stops when cancelled, without reading on', async () => {
    const controller = new AbortController();
    const received: ImportedOrder[] = [];
    const big = join(dir, 'cancel.csv');
    await writeFile(big, writeTemplateCsv(Array.from({ length: 3000 }, (_, i) => exampleOrder(`C-${i}`))));
    const run = importFile(big, {
      ...base,
      signal: controller.signal,
      onProgress: () => controller.abort(),
      onOrder: (order) => void received.push(order),
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    // Orders of the first chunk were handed on before the cancel; staging rolls its batch back.
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(3000);
  });

  it('stops at a 50 MB field with one clear problem, without reading the rest of the file', async () => {
    const header = writeTemplateCsv([]).trimEnd();
    for (const [name, head, tail] of [
      ['quoted.csv', `${header}\r\nCLINIC-A,ORD-1,"`, '"\r\n'],
      ['unquoted.csv', `${header}\r\nCLINIC-A,ORD-1,`, '\r\n'],
    ] as const) {
      const { report, furthest } = await importTracking(await writeHuge(name, head, 50, tail));
      expect(report.fileProblems).toMatchObject([{ code: 'csv.recordTooLarge', severity: 'error', row: 2 }]);
      expect(report.orders).toEqual([]);
      expect(furthest).toBeLessThan(5 * MB);
    }
  });

  it('stops at a 50 MB HL7 segment with one clear problem', async () => {
    const message = writeRde011(exampleOrder('H-1'), { timestamp: '20250101120000' });
    const { report, furthest } = await importTracking(await writeHuge('huge.hl7', `${message}\rNTE|1||`, 50, '\r'));
    expect(report.format).toBe('hl7');
    expect(report.fileProblems).toMatchObject([{ code: 'hl7.segmentTooLarge', severity: 'error' }]);
    expect(furthest).toBeLessThan(5 * MB);
  });

  it('reports unreadable text (U+FFFD) that first appears far into a file, past the first chunks read', async () => {
    const orders = Array.from({ length: 3000 }, (_, i) =>
      exampleOrder(`FAR-${i}`, (o) => {
        if (i === 2999) o.customer.surname = 'Zo\ufffd';
      }),
    );
    const path = join(dir, 'unreadable-far.csv');
    await writeFile(path, writeTemplateCsv(orders));
    const report = await importFile(path, base);
    expect(report.orders).toHaveLength(3000);
    expect(report.orders.filter((order) => !order.valid).map((order) => order.clinicOrderId)).toEqual(['FAR-2999']);
    expect(report.orders[2999]!.problems).toContainEqual(
      expect.objectContaining({ code: 'text.unreadable', field: 'customer.surname' }),
    );
  });

  it('reads a no-break space that first appears far into a file, past the first chunks read, as a plain space', async () => {
    const orders = Array.from({ length: 3000 }, (_, i) => exampleOrder(`NB-${i}`));
    const lines = writeTemplateCsv(orders).trimEnd().split('\r\n');
    // The last order's postcode with a no-break space on its first row; its second row (the same order) plain.
    lines.push(lines[3000]!.replace('NB-2999', 'NB-2998').replaceAll('LS1 4AP', 'LS1\u00a04AP'));
    const path = join(dir, 'nbsp-far.csv');
    await writeFile(path, lines.join('\r\n'));
    const report = await importFile(path, base);
    expect(report.orders).toHaveLength(3000);
    expect(report.orders.filter((order) => !order.valid)).toEqual([]);
    expect(report.orders.find((o) => o.clinicOrderId === 'NB-2998')!.source.rows).toEqual([3000, 3002]);
    expect(report.fileProblems).toMatchObject([{ code: 'text.unusualSpaces', row: 3002 }]);
  });

  it('reads a file past the first sample padded with zero bytes, with one warning and progress to its last byte', async () => {
    const text = writeTemplateCsv(Array.from({ length: 400 }, (_, i) => exampleOrder(`PAD-${i}`)));
    const path = join(dir, 'padded-large.csv');
    const content = Buffer.from(text);
    await writeFile(path, Buffer.concat([content, Buffer.alloc(65536 - (content.length % 65536))]));
    const size = Math.ceil(content.length / 65536) * 65536;
    let last = 0;
    const report = await importFile(path, { ...base, onProgress: (p) => (last = p.bytes) });
    expect(report.orderCount).toBe(400);
    expect(report.invalidCount).toBe(0);
    expect(report.fileProblems).toMatchObject([{ code: 'file.trailingPadding', severity: 'warning' }]);
    expect(report.fileProblems[0]!.text).toContain(
      `ends in ${(size - content.length).toLocaleString('en-GB')} zero bytes`,
    );
    expect(last).toBe(size);
    // Only zero bytes: no text at all.
    const zeros = join(dir, 'zeros.csv');
    await writeFile(zeros, Buffer.alloc(4096));
    expect((await importFile(zeros, base)).fileProblems).toMatchObject([{ code: 'file.empty' }]);
  });

  it('refuses a huge file of zero bytes as binary at once, without reading it through', async () => {
    // 4 GiB, sparse: no disk is used, but reading it would take minutes (the test would time out).
    const path = join(dir, 'sparse.csv');
    await writeFile(path, '');
    await truncate(path, 4 * 1024 ** 3);
    expect((await importFile(path, base)).fileProblems).toMatchObject([{ code: 'file.binary' }]);
    // Text with a run of zero bytes inside it, past the sample's start: binary too, whatever the encoding.
    const inside = join(dir, 'zeros-inside.csv');
    await writeFile(inside, Buffer.concat([Buffer.from('a,b\r\n1,2\r\n'), Buffer.alloc(64), Buffer.from('3,4\r\n')]));
    expect((await importFile(inside, base)).fileProblems).toMatchObject([{ code: 'file.binary' }]);
  });

  it('decodes with an overriding encoding, and says it was not detected', async () => {
    const report = await importFile(fixture('windows-1252.csv'), { ...base, encoding: 'UTF8' });
    expect(report).toMatchObject({ encoding: 'utf-8', encodingDetected: false });
    expect((report.orders[0]!.body as { customer: { firstName: string } }).customer.firstName).toBe('Zo\ufffd');
    // Read in the wrong encoding, the name is not sent on: the order has an error on that field, at its row.
    expect(report.orders[0]).toMatchObject({ valid: false });
    expect(report.orders[0]!.problems).toContainEqual(
      expect.objectContaining({ code: 'text.unreadable', field: 'customer.firstName', row: 2 }),
    );
    expect(report.fileProblems).toMatchObject([{ code: 'file.notUtf8', severity: 'warning' }]);
    const fixed = await importFile(fixture('windows-1252.csv'), { ...base, encoding: 'cp1252' });
    expect(fixed.fileProblems).toEqual([]);
    // A UTF-8 file read as UTF-8 by choice gets no such warning.
    expect((await importFile(fixture('template-example.csv'), { ...base, encoding: 'utf-8' })).fileProblems).toEqual(
      [],
    );
    expect((fixed.orders[0]!.body as { customer: { firstName: string } }).customer.firstName).toBe('Zoë');
    const unknown = await importFile(fixture('windows-1252.csv'), { ...base, encoding: 'klingon' });
    expect(unknown.fileProblems).toMatchObject([{ code: 'file.unknownEncoding' }]);
  });

  it('refuses an encoding it does not read by its name, even when chosen, and honours MSH-18 only where it reads it', async () => {
    const chosen = await importFile(fixture('template-example.csv'), { ...base, encoding: 'ISO-2022-JP' });
    expect(chosen.fileProblems).toMatchObject([{ code: 'file.unsupportedEncoding', severity: 'error' }]);
    expect(chosen.fileProblems[0]!.text).toContain('which Rx Batch does not read; save it as UTF-8');
    // HL7's own names for an encoding are understood when chosen too.
    const latin2 = await importFile(fixture('latin2-declared.hl7'), { ...base, encoding: '8859/2' });
    expect(latin2).toMatchObject({ encoding: 'iso-8859-2', encodingDetected: false });

    const message = writeRde011(
      exampleOrder('E-1', (o) => (o.customer.firstName = 'Zoë')),
      {
        timestamp: '20250101120000',
      },
    );
    const withMsh18 = (value: string) => message.replace('|P|2.5', `|P|2.5||||||${value}`);
    const write = async (name: string, bytes: Buffer) => {
      await writeFile(join(dir, name), bytes);
      return importFile(join(dir, name), {
        ...base,
        profile: { name: 'p', columns: {}, constants: {}, valueMaps: {} },
      });
    };
    // MSH-18 names a set it does not read, and the file holds more than ASCII: refused by that name.
    const ir87 = await write('ir87.hl7', Buffer.from(withMsh18('ISO IR87'), 'latin1'));
    expect(ir87.fileProblems).toMatchObject([{ code: 'file.unsupportedEncoding' }]);
    expect(ir87.fileProblems[0]!.text).toContain("MSH-18 says 'ISO IR87'");
    // ISO-2022-JP is 7-bit text: a file of valid UTF-8 beyond ASCII is not in it (converted, MSH-18 left as it was).
    for (const value of ['~ISO IR87', 'ISO IR87']) {
      const converted = await write('ir87-utf8.hl7', Buffer.from(withMsh18(value).replace('Zoë', '山田 Zoë'), 'utf8'));
      expect(converted).toMatchObject({ encoding: 'utf-8' });
      expect(converted.fileProblems).toMatchObject([{ code: 'hl7.characterSet', severity: 'warning' }]);
      expect(converted.fileProblems[0]!.text).toContain(`MSH-18 says '${value.replace('~', '')}'`);
      expect((converted.orders[0]!.body as { customer: { firstName: string } }).customer.firstName).toBe('山田 Zoë');
    }
    // Plain ASCII reads the same in every set: nothing to refuse.
    const ascii = await write('ir87-ascii.hl7', Buffer.from(withMsh18('~ISO IR87').replace('Zoë', 'Zoe'), 'latin1'));
    expect(ascii.fileProblems.filter((p) => p.severity === 'error')).toEqual([]);
    // A name it does not know: a warning, and the bytes decide.
    const klingon = await write('klingon.hl7', Buffer.from(withMsh18('KLINGON-8'), 'latin1'));
    expect(klingon).toMatchObject({ encoding: 'windows-1252' });
    expect(klingon.fileProblems).toMatchObject([{ code: 'hl7.characterSet', severity: 'warning' }]);
    // A declared UTF-16 whose MSH reads as ASCII is not UTF-16.
    const utf16 = await write('utf16-label.hl7', Buffer.from(withMsh18('UNICODE UTF-16'), 'utf8'));
    expect(utf16).toMatchObject({ encoding: 'utf-8' });
    expect(utf16.fileProblems).toMatchObject([{ code: 'hl7.characterSet' }]);
    expect((utf16.orders[0]!.body as { customer: { firstName: string } }).customer.firstName).toBe('Zoë');
  });

  it('tells the admin when a chosen profile does not fit the file', async () => {
    const profile: MappingProfile = {
      name: 'Old export',
      columns: { surname: 'Family', firstName: 'Given', dateOfBirth: 'Born', bogus: 'X' },
      constants: {},
      valueMaps: {},
    };
    const notFound = await importFile(fixture('template-example.csv'), { ...base, profile });
    expect(notFound.fileProblems).toMatchObject([{ code: 'csv.profileHeaderNotFound' }]);

    const partly = await importFile(fixture('template-example.csv'), {
      ...base,
      profile: {
        ...profile,
        columns: {
          surname: 'surname',
          firstName: 'firstName',
          dateOfBirth: 'dateOfBirth',
          title: 'Salutation',
          nonsense: 'x',
        },
      },
    });
    expect(partly.fileProblems.map((p) => p.code).sort()).toEqual(['profile.missingColumn', 'profile.unknownField']);
    expect(partly.fileProblems.every((p) => p.severity === 'warning')).toBe(true);
    expect(partly.orders[0]!.problems.map((p) => p.code)).toContain('field.required');
  });

  it('fills what an HL7 message cannot carry from the profile’s constants, never over what it does carry', async () => {
    const path = join(dir, 'constants.hl7');
    await writeFile(path, writeRde011(exampleOrder('C-1'), { timestamp: '20250101120000' }));
    const without = await importFile(path, base);
    expect(without.orders[0]!.problems.map((p) => p.field).sort()).toEqual([
      'prescription.courierCode',
      'prescription.currencyCode',
      'prescription.paymentType',
    ]);

    const profile: MappingProfile = {
      name: 'Clinic HL7',
      columns: {},
      constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP', surname: 'Constant' },
      valueMaps: {},
    };
    const report = await importFile(path, { ...base, profile });
    expect(report).toMatchObject({ format: 'hl7', profile: 'Clinic HL7', appliedProfile: profile, invalidCount: 0 });
    const order = report.orders[0]!;
    expect((order.body as { prescription: unknown }).prescription).toMatchObject({
      paymentType: 'Account',
      courierCode: 'RMT24',
      currencyCode: 'GBP',
    });
    expect(order.provenance['prescription.courierCode']).toEqual({
      kind: 'constant',
      profile: 'Clinic HL7',
      column: 'courierCode',
    });
    // PID-5.1 is in the message, so the constant for surname is not used.
    expect((order.body as { customer: { surname: string } }).customer.surname).toBe(
      exampleOrder('C-1').customer.surname,
    );
    expect(order.provenance['customer.surname']).toMatchObject({ kind: 'hl7', path: 'PID-5.1' });
  });

  it('applies an HL7 profile’s field map overrides, including Z-segments', async () => {
    const message = writeRde011(exampleOrder('Z-1'), { timestamp: '20250101120000' }) + '\rZPY|Card|DPD|GBP';
    const path = join(dir, 'z.hl7');
    await writeFile(path, message);
    const report = await importFile(path, {
      ...base,
      profile: {
        name: 'Z',
        columns: {},
        constants: {},
        valueMaps: {},
        hl7FieldMap: {
          paymentType: 'ZPY-1',
          courierCode: 'ZPY-2',
          currencyCode: 'ZPY-3',
          pack: 'RXE-10',
          nonsense: 'ZPY-9',
          title: 'not a path',
        },
      },
    });
    expect(report.fileProblems.map((p) => p.code).sort()).toEqual(['profile.badHl7Path', 'profile.unknownField']);
    const order = report.orders[0]!;
    expect(order.problems).toEqual([]);
    expect((order.body as { prescription: unknown }).prescription).toMatchObject({
      paymentType: 'Card',
      courierCode: 'DPD',
      currencyCode: 'GBP',
    });
    expect(order.provenance['prescription.courierCode']).toMatchObject({
      path: 'ZPY-2.1',
      segment: 'ZPY|Card|DPD|GBP',
    });
    expect(order.provenance['prescribedItems.0.pack']).toMatchObject({ path: 'RXE-10.1' });
  });
});

describe('the CSV template', () => {
  it('is the committed example file, byte for byte', () => {
    expect(readFileSync(fixture('template-example.csv'), 'utf8')).toBe(writeTemplateCsv(templateExampleOrders()));
  });

  it('writes a row for an order without items, and a BOM when asked', () => {
    const order = exampleOrder('EMPTY', (o) => (o.prescribedItems = []));
    const csv = writeTemplateCsv([order], { bom: true });
    expect(csv.startsWith('\ufeffclinicCode,')).toBe(true);
    expect(csv.trimEnd().split('\r\n')).toHaveLength(2);
  });

  it('and the HL7 field map are documented row by row in the README, what each does with repetitions included', () => {
    const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('| field(s)');
    const rows = readme
      .slice(start, readme.indexOf('\n\n', start))
      .split('\n')
      .slice(2)
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    expect(rows).toEqual(DEFAULT_HL7_MAP.map((entry) => [entry.column, entry.source, entry.repetitions]));
  });

  it('is documented column by column in the README', () => {
    const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
    for (const column of TEMPLATE_COLUMNS) expect(readme).toMatch(new RegExp(`^\\| \`${column}\` +\\|`, 'm'));
  });
});

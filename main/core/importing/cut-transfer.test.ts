import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, type MappingProfile } from './index.js';
import { writeRde011 } from './rde-writer.js';
import { FIXTURE_DIR, exampleOrder } from './testing/write-fixtures.js';

/**
 * A file that stops part way (a copy or transfer cut off, a file picked up while still being written) may end inside
 * a value: `16` read as `1` is a valid quantity. A CSV whose last row is short with no line break after it, and an
 * HL7 message whose MLLP frame the file ends inside, are errors on that order, never sent as read.
 */

const TODAY = new Date('2025-06-01T00:00:00Z');
const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

let dir: string;
let lines: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-cut-'));
  lines = (await readFile(join(FIXTURE_DIR, 'template-example.csv'), 'utf8')).split(/\r?\n/).filter((l) => l !== '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importText(name: string, text: string | Buffer, profile?: MappingProfile) {
  const path = join(dir, name);
  await writeFile(path, text);
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, today: TODAY, ...(profile ? { profile } : {}) });
}

const cutProblems = (report: Awaited<ReturnType<typeof importFile>>) =>
  report.orders.flatMap((o) => o.problems.filter((p) => p.code === 'csv.lastRowCut' || p.code === 'hl7.frameUnclosed'));

describe('a CSV cut short inside its last row', () => {
  it('names the last value read, which may be incomplete (quantity 1 of 16), and blocks that order only', async () => {
    const last = lines.at(-1)!; // …,16,   (quantity 16, pack empty)
    const cut = last.slice(0, last.lastIndexOf(',16,') + 2); // …,1
    const report = await importText('cut.csv', [...lines.slice(0, -1), cut].join('\r\n'));
    const problems = cutProblems(report);
    expect(problems).toEqual([
      {
        severity: 'error',
        file: 'cut.csv',
        row: lines.length,
        field: 'prescribedItems.0.quantity',
        code: 'csv.lastRowCut',
        text: `Row ${lines.length} is the file's last and stops after 46 of the header's 47 columns, with no line break after it: the file may have been cut short in the middle of this row (a copy or transfer that stopped), so its last value, item 1 quantity '1' (column "quantity"), may be incomplete. Check the row against the clinic system and correct it in the preview, or import the whole file again.`,
      },
    ]);
    expect(report.orders.map((o) => o.valid)).toEqual([true, true, false]);
  });

  it('names the first missing column when the last cell read is empty', async () => {
    const last = lines.at(-1)!;
    const cut = last.slice(0, last.lastIndexOf(',16,') + 1); // …,   (quantity empty, pack missing)
    const report = await importText('cut-empty.csv', [...lines.slice(0, -1), cut].join('\n'));
    expect(cutProblems(report)).toMatchObject([
      { code: 'csv.lastRowCut', field: 'prescribedItems.0.pack', row: lines.length },
    ]);
    expect(cutProblems(report)[0]!.text).toContain('item 1 packs (column "pack") and the columns after it are missing');
  });

  it('says nothing of a whole last row without a line break, or of a short row that has one', async () => {
    const whole = await importText('whole.csv', lines.join('\r\n'));
    expect(cutProblems(whole)).toEqual([]);
    expect(whole.orders.every((o) => o.valid)).toBe(true);
    const last = lines.at(-1)!;
    const short = last.slice(0, last.lastIndexOf(',16,') + 3); // …,16  (pack left out), then a line break
    const ended = await importText('short-ended.csv', [...lines.slice(0, -1), short].join('\r\n') + '\r\n');
    expect(cutProblems(ended)).toEqual([]);
    expect(ended.fileProblems.map((p) => p.code)).toEqual(['csv.missingCells']);
  });

  it('says nothing when earlier rows are short too (a writer that leaves out trailing empty cells)', async () => {
    // Every row without its pack cell, as such a writer leaves an empty last column.
    const dropped = lines.map((l, i) => (i === 0 ? l : l.slice(0, l.lastIndexOf(','))));
    const report = await importText('dropped.csv', dropped.join('\n'));
    expect(cutProblems(report)).toEqual([]);
    expect(report.orders.every((o) => o.valid)).toBe(true);
  });
});

describe('an HL7 file that ends inside an MLLP frame', () => {
  const message = (id: string) => writeRde011(exampleOrder(id), { timestamp: '20250101120000' }).replace(/\r$/, '');
  const frame = (text: string) => `\x0b${text}\r\x1c\r`;

  it('refuses the message in the unclosed frame, naming it, and reads the closed one before it', async () => {
    const second = message('F-2');
    const cut = second.slice(0, second.lastIndexOf('|') + 2);
    const report = await importText('cut.hl7', frame(message('F-1')) + `\x0b${cut}`, PROFILE);
    expect(report.orders.map((o) => o.valid)).toEqual([true, false]);
    expect(cutProblems(report)).toEqual([
      {
        severity: 'error',
        file: 'cut.hl7',
        message: 2,
        code: 'hl7.frameUnclosed',
        text: `Message 2 (line ${message('F-1').split('\r').length + 2}) starts an MLLP frame (byte 0x0B) that the file ends inside, with no end byte (0x1C): the transfer or copy stopped part way, so its last segment may be cut short (a quantity or dosage read incomplete). Ask the sender for the file again; if the file is still being written, import it once it is complete.`,
      },
    ]);
  });

  it('says nothing of closed frames, a frame closed without a CR, or a start byte after the last frame', async () => {
    for (const text of [
      frame(message('F-1')) + frame(message('F-2')),
      `\x0b${message('F-1')}\x1c`,
      frame(message('F-1')) + '\x0b',
    ]) {
      const report = await importText('framed.hl7', text, PROFILE);
      expect(cutProblems(report)).toEqual([]);
      expect(report.orders.every((o) => o.valid)).toBe(true);
    }
  });
});

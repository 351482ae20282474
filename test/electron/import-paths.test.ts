import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFilesAt, MAX_IMPORT_FILES } from '../../main/electron/import-paths.js';

/** Real files in a temp directory: what the OS hands over is checked against the disk, not trusted by name. */

let root: string;
const at = (...parts: string[]) => join(root, ...parts);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rxbatch-import-paths-'));
  mkdirSync(at('batches', 'archive'), { recursive: true });
  for (const name of ['batch-10.csv', 'batch-2.csv', 'adt.HL7', 'export.txt', 'notes.pdf', '.DS_Store']) {
    writeFileSync(at('batches', name), 'x');
  }
  writeFileSync(at('batches', 'archive', 'old.csv'), 'x');
  writeFileSync(at('elsewhere.csv'), 'x');
  symlinkSync(at('elsewhere.csv'), at('batches', 'linked.csv'));
  mkdirSync(at('empty'));
  writeFileSync(at('empty', 'readme.md'), 'x');
  mkdirSync(at('many'));
  for (let i = 0; i < MAX_IMPORT_FILES + 5; i += 1) writeFileSync(at('many', `order-${i}.csv`), 'x');
  mkdirSync(at('folder.csv'));
  mkdirSync(at('formats'));
  for (const name of ['orders.tsv', 'lab.er7', 'orders.json', 'photo.jpg']) writeFileSync(at('formats', name), 'x');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('files handed over by the OS', () => {
  it('keeps regular CSV and HL7 files, and says why each other path is passed over, by name only', async () => {
    const result = await importFilesAt([
      at('elsewhere.csv'),
      at('batches', 'notes.pdf'),
      at('gone.csv'),
      'relative.csv',
      at('folder.csv'),
      at('elsewhere.csv'),
    ]);
    expect(result.paths).toEqual([at('elsewhere.csv')]);
    expect(result.skipped).toEqual([
      { name: 'notes.pdf', reason: 'not a CSV or HL7 file' },
      { name: 'gone.csv', reason: 'not found' },
      { name: 'relative.csv', reason: 'not a full path' },
      { name: 'folder.csv', reason: 'a folder with no CSV or HL7 files in it' },
    ]);
    expect(JSON.stringify(result.skipped)).not.toContain(root);
  });

  it("takes a folder's own CSV/HL7 files in natural order, not those in folders inside it", async () => {
    const result = await importFilesAt([at('batches')]);
    expect(result.paths).toEqual([
      at('batches', 'adt.HL7'),
      at('batches', 'batch-2.csv'),
      at('batches', 'batch-10.csv'),
      at('batches', 'export.txt'),
      at('batches', 'linked.csv'),
    ]);
    expect(result.skipped).toEqual([
      { name: 'archive', reason: 'a folder: only the files directly in the chosen folder are imported' },
      { name: 'notes.pdf', reason: 'not a CSV or HL7 file' },
    ]);
  });

  it('takes every kind of file the importer reads: tab-separated, HL7 as .er7, JSON', async () => {
    const result = await importFilesAt([at('formats')]);
    expect(result.paths).toEqual([at('formats', 'lab.er7'), at('formats', 'orders.json'), at('formats', 'orders.tsv')]);
    expect(result.skipped).toEqual([{ name: 'photo.jpg', reason: 'not a CSV or HL7 file' }]);
  });

  it('says so when a folder holds no batches at all', async () => {
    expect(await importFilesAt([at('empty')])).toEqual({
      paths: [],
      skipped: [
        { name: 'readme.md', reason: 'not a CSV or HL7 file' },
        { name: 'empty', reason: 'a folder with no CSV or HL7 files in it' },
      ],
    });
  });

  it(`takes at most ${MAX_IMPORT_FILES} files at a time and counts the rest`, async () => {
    const result = await importFilesAt([at('many')]);
    expect(result.paths).toHaveLength(MAX_IMPORT_FILES);
    expect(result.skipped).toEqual([
      { name: '5 more files', reason: `at most ${MAX_IMPORT_FILES} files are imported at a time` },
    ]);
  });
});

import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { filesFromSecondInstance, importFilesFromArgv, LaunchFiles } from '../../main/electron/launch-files.js';

const cwd = resolve('/home/admin/batches');

describe('files named on a command line', () => {
  it('keeps CSV and HL7 files as absolute paths, skipping the executable, the app script and switches', () => {
    const argv = [
      '/opt/Rx Batch/rx-batch',
      '/opt/app/out/main/index.js',
      '--no-sandbox',
      '--allow-file-access-from-files',
      'monday.csv',
      join(cwd, 'adt.HL7'),
      'export.txt',
      'notes.pdf',
      'monday.csv',
    ];
    expect(importFilesFromArgv(argv, cwd)).toEqual([
      join(cwd, 'monday.csv'),
      join(cwd, 'adt.HL7'),
      join(cwd, 'export.txt'),
    ]);
  });

  it('takes at most 100 files', () => {
    const argv = Array.from({ length: 150 }, (_, index) => `batch-${index}.csv`);
    expect(importFilesFromArgv(argv, cwd)).toHaveLength(100);
  });
});

describe("a second launch's files", () => {
  it('come from the data it sent, checked, when it sent any', () => {
    const files = [join(cwd, 'a.csv'), join(cwd, 'b.hl7')];
    expect(filesFromSecondInstance(['/opt/rx-batch', 'ignored.csv'], cwd, { files })).toEqual(files);
  });

  it('drop relative paths and other file types from that data', () => {
    const data = { files: ['relative.csv', join(cwd, 'x.exe'), join(cwd, 'ok.csv')] };
    expect(filesFromSecondInstance([], cwd, data)).toEqual([join(cwd, 'ok.csv')]);
  });

  it.each([
    ['no data', undefined],
    ['data of the wrong shape', { files: 'a.csv' }],
    ['data with extra fields', { files: [], run: 'rm -rf /' }],
    ['too many files', { files: Array.from({ length: 101 }, (_, i) => `/x/${i}.csv`) }],
  ])('fall back to its command line when it sent %s', (_label, data) => {
    expect(filesFromSecondInstance(['/opt/rx-batch', 'late.csv'], cwd, data)).toEqual([join(cwd, 'late.csv')]);
  });
});

describe('LaunchFiles', () => {
  it('holds files until an importer is set, then hands each batch over once', () => {
    const files = new LaunchFiles();
    files.add(['/a.csv']);
    files.add([]);
    files.add(['/b.hl7']);
    expect(files.waitingCount).toBe(2);
    const importer = vi.fn();
    const unset = files.setHandler(importer);
    expect(importer.mock.calls).toEqual([[['/a.csv', '/b.hl7']]]);
    files.add(['/c.csv']);
    expect(importer).toHaveBeenLastCalledWith(['/c.csv']);
    expect(files.waitingCount).toBe(0);
    unset();
    files.add(['/d.csv']);
    expect(importer).toHaveBeenCalledTimes(2);
    expect(files.waitingCount).toBe(1);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { droppedFilePaths, fileNameOf } from './desktop-files.js';

/** Dropped files: by path in the desktop app (the preload knows where each is), as uploads in browser mode. */

const file = (name: string) => ({ name }) as File;

afterEach(() => vi.unstubAllGlobals());

describe('droppedFilePaths', () => {
  it('gives every dropped file its path when the desktop preload knows them all', () => {
    const paths: Record<string, string> = { 'a.csv': '/in/a.csv', 'b.hl7': '/in/b.hl7' };
    vi.stubGlobal('window', { rxBatchFiles: { pathForFile: (f: File) => paths[f.name] ?? '' } });
    expect(droppedFilePaths([file('a.csv'), file('b.hl7')])).toEqual(['/in/a.csv', '/in/b.hl7']);
  });

  it('gives none when one of them has no path, so the page uploads instead of importing half', () => {
    vi.stubGlobal('window', { rxBatchFiles: { pathForFile: (f: File) => (f.name === 'a.csv' ? '/in/a.csv' : '') } });
    expect(droppedFilePaths([file('a.csv'), file('made-by-script.csv')])).toEqual([]);
  });

  it('gives none in browser mode, where there is no preload', () => {
    vi.stubGlobal('window', {});
    expect(droppedFilePaths([file('a.csv')])).toEqual([]);
  });
});

describe('fileNameOf', () => {
  it('shows the name, not the folders', () => {
    expect(fileNameOf('/home/admin/batches/monday.csv')).toBe('monday.csv');
    expect(fileNameOf('C:\\Users\\admin\\monday.csv')).toBe('monday.csv');
    expect(fileNameOf('monday.csv')).toBe('monday.csv');
  });
});

import type * as Fs from 'node:fs';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Making a file private can fail where this test cannot reach as root (another user's file chosen in the save
// dialog: EPERM), so fchmod is made to fail here; the rest is the real file system.
const fchmodFails = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof Fs>();
  return {
    ...fs,
    fchmodSync: (fd: number, mode: number) => {
      if (fchmodFails.on) throw Object.assign(new Error('EPERM: operation not permitted, fchmod'), { code: 'EPERM' });
      fs.fchmodSync(fd, mode);
    },
  };
});

const { privateWriteStream } = await import('./export-files.js');
const { writeExport } = await import('../export-target.js');

describe('an export file that cannot be made private', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rx-export-files-'));
  afterEach(() => {
    fchmodFails.on = false;
  });

  it('fails the stream with the error instead of throwing where nothing can catch it', async () => {
    fchmodFails.on = true;
    const failed = await new Promise<unknown>((resolve) =>
      privateWriteStream(join(dir, 'a.csv')).once('error', resolve),
    );
    expect(failed).toMatchObject({ code: 'EPERM' });
  });

  it('makes the export fail, and leaves nothing of it behind', async () => {
    fchmodFails.on = true;
    const path = join(dir, 'b.csv');
    await expect(writeExport({ path }, ['a,b\r\n'], { bom: true })).rejects.toMatchObject({ code: 'EPERM' });
    expect(existsSync(path)).toBe(false);
    fchmodFails.on = false;
    await writeExport({ path }, ['a,b\r\n']);
    expect(existsSync(path)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });
});

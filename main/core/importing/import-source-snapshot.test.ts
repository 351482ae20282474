import { appendFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openImportSource } from './import-source.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('an opened import file', () => {
  it('reads only the bytes it had when opened, and says when it was written to since', async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'rx-source-')));
    const path = join(dir, 'orders.csv');
    writeFileSync(path, 'a,b\n1,2\n');
    const opened = await openImportSource(path, 'orders.csv');
    if (!opened.ok) throw new Error(opened.problem.text);
    try {
      expect(await opened.source.changedSinceOpen()).toBe(false);
      appendFileSync(path, '3,4\n');
      const buffer = Buffer.alloc(64);
      const read = await opened.source.read(buffer, 0, buffer.length, 0);
      expect(buffer.subarray(0, read).toString()).toBe('a,b\n1,2\n');
      expect(await opened.source.read(buffer, 0, buffer.length, read)).toBe(0);
      expect(await opened.source.changedSinceOpen()).toBe(true);
    } finally {
      await opened.source.close();
    }
  });
});

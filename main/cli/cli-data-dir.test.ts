import { chmodSync, chownSync, mkdtempSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './testing/run-cli-captured.js';

/** A data directory the CLI cannot use is a usage error (exit 2) that names it, not a failed command (exit 1). */

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-data-dir-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.platform !== 'win32')('rx-batch on a data directory of another user', () => {
  it('refuses it with exit 2, naming the folder, and opens nothing there', async () => {
    let folder = '/usr';
    if (process.getuid?.() === 0) {
      folder = join(dir, 'someone-else');
      mkdirSync(folder, { mode: 0o777 });
      chownSync(folder, 65_534, 65_534);
    }
    const run = await runCliCaptured(['env', 'list', '--data-dir', folder]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${folder} belongs to another user`);
    expect(run.stdout).toBe('');
  });
});

describe.runIf(process.platform !== 'win32')('rx-batch on a data directory others share (finding 31)', () => {
  it('refuses a folder other users write to, leaving its mode, and an empty --data-dir', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const run = await runCliCaptured(['env', 'list', '--data-dir', shared]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${shared} is shared: other users can write to it (mode 1777)`);
    expect(statSync(shared).mode & 0o7777).toBe(0o1777);
    expect(readdirSync(shared)).toEqual([]);

    // An unset variable in a script (`--data-dir "$DIR"`) named the current folder (here a folder of the test's).
    const current = join(dir, 'current');
    mkdirSync(current);
    const cwd = process.cwd();
    process.chdir(current);
    const empty = await runCliCaptured(['env', 'list', '--data-dir', '']).finally(() => process.chdir(cwd));
    expect(readdirSync(current)).toEqual([]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('--data-dir needs a folder: it was given an empty value\nSee rx-batch --help.\n');
    expect(empty.stdout).toBe('');
  });
});

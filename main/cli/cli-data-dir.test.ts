import { chownSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
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

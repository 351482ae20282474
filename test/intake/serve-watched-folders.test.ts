import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../main/cli/testing/run-cli-captured.js';
import { sandboxEnvPerFile } from './support/serve-env.js';

/**
 * A watched folder every local account could write to (a folder made under umask 000, or chmod 777 "to make it
 * work") had its files imported as orders, and sent under "send valid orders as they arrive", without a word; one
 * they could list showed them the patients' files, kept in done/ and failed/ for good. Serve now warns, naming the
 * folder, who has access and the fix, and still watches; done/ and failed/ are made as private as the folder.
 */

const { root, data } = sandboxEnvPerFile('rx-serve-watched-');

/** `serve --watch` on `folders`, stopped as soon as it has started (the signal already given). */
async function watchOnce(...folders: string[]) {
  const stopped = new AbortController();
  stopped.abort();
  const args = ['serve', '--env', 'sbx', ...folders.flatMap((folder) => ['--watch', folder])];
  return runCliCaptured([...args, '--data-dir', data], stopped.signal);
}

function folder(name: string, mode: number): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  chmodSync(path, mode);
  return path;
}

const watchWarnings = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('warning: --watch'));
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('serve: a watched folder as its permissions leave it', () => {
  it('warns of a folder others can write to or list, and still watches it', async () => {
    const open = folder('open-inbox', 0o777);
    const listed = folder('listed-inbox', 0o755);
    const run = await watchOnce(open, listed);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`watching: ${open}`);
    expect(watchWarnings(run.stderr)).toEqual([
      `warning: --watch ${open}: its group and every user can put files in it (mode 0777), which are imported as ` +
        'orders; its group and every user can list it (mode 0777) and read the patient files its modes allow; ' +
        'chmod 700 it (or 770, with a group of this account and the system that writes there only)',
      `warning: --watch ${listed}: its group and every user can list it (mode 0755) and read the patient files its ` +
        'modes allow; chmod 700 it (or 770, with a group of this account and the system that writes there only)',
    ]);
  }, 60_000);

  it('says nothing of a folder only its owner can use, and makes done/ and failed/ as private as it', async () => {
    const own = folder('own-inbox', 0o700);
    const run = await watchOnce(own);
    expect(run.code).toBe(0);
    expect(watchWarnings(run.stderr)).toEqual([]);
    expect([modeOf(join(own, 'done')), modeOf(join(own, 'failed'))]).toEqual([0o700, 0o700]);
  }, 60_000);
});
